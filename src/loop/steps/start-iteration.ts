/** Start an iteration: rebuild the brief from the timeline and record it, exactly as the maker will get it. */
import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { mkdirSync, writeFileSync } from "../../files/node-fs.ts";
import { readRegularFile } from "../../files/read-regular-file.ts";
import { branchTip } from "../../git/loop-branch.ts";
import { listPendingFiles } from "../../git/loop-repository.ts";
import { buildBrief, redResults } from "../brief.ts";
import type { RunContext } from "../run-context.ts";
import { handMakerListingAhead, loopRepositoryOf, makerIndex } from "./loop-git.ts";

/** LESSONS.md larger than this is left out of the brief (the brief quotes at most 8000 characters). */
const maximumLessonsBytes = 256 * 1024;

export async function startIteration(context: RunContext, iteration: number): Promise<void> {
  const state = context.state();
  // The maker turn that comes next first lists its checkout's files against its index: begun now, while
  // the brief is made (nothing here writes in the checkout: LESSONS.md is only read).
  handMakerListingAhead(
    context,
    loopRepositoryOf(context).then((repository) =>
      listPendingFiles(repository, context.makerWorktree, makerIndex),
    ),
  );
  // The loop's branch, not the maker's checkout's HEAD: the loop owns its branch.
  const startSha = await branchTip(context.loop.repoRoot, state.spec.branch);
  if (!startSha) throw new Error(`the loop's branch ${state.spec.branch} is missing`);
  // The maker writes LESSONS.md: only a regular file is read (a FIFO would hang), never through a link.
  const lessonsFile = await readRegularFile(join(context.makerWorktree, "LESSONS.md"), {
    maximumBytes: maximumLessonsBytes,
    noFollow: true,
  });
  const lessons = lessonsFile.ok ? lessonsFile.text : undefined;
  const previous = state.iterations.at(-1);
  const digests: Record<string, string> = {};
  const baseRuns = Object.values(state.baseRuns.gates).flatMap((byGate) => Object.values(byGate ?? {}));
  const red = previous ? redResults(state, previous) : baseRuns.filter((result) => !result.passed);
  for (const result of red) {
    if (!result.digestPath) continue;
    const text = await readFile(result.digestPath, "utf8").catch(() => undefined);
    if (text) digests[`${result.phase}:${result.id}`] = text;
  }
  // Everything in the brief can come from the maker or a command: no secret value may reach it.
  const brief = context.redact(buildBrief(state, iteration, { lessons, digests }));
  const directory = context.layout.iterationDirectory(context.loop.id, iteration);
  // A folder and a file of some kilobytes: written synchronously (microseconds), not through two
  // round trips of libuv's thread pool, on the way to the maker's turn.
  mkdirSync(directory, { recursive: true });
  const briefPath = join(directory, "brief.md");
  writeFileSync(briefPath, brief);
  await context.append("iteration_started", { iteration, startSha, brief, briefPath });
}
