/** Start an iteration: rebuild the brief from the timeline and record it, exactly as the maker will get it. */
import { mkdir, readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { headSha } from "../../git/commits.ts";
import { buildBrief } from "../brief.ts";
import type { RunContext } from "../run-context.ts";

export async function startIteration(context: RunContext, iteration: number): Promise<void> {
  const startSha = await headSha(context.makerWorktree);
  const lessons = await readFile(join(context.makerWorktree, "LESSONS.md"), "utf8").catch(() => undefined);
  const brief = buildBrief(context.state(), iteration, { lessons });
  const directory = context.layout.iterationDirectory(context.loop.id, iteration);
  await mkdir(directory, { recursive: true });
  const briefPath = join(directory, "brief.md");
  await writeFile(briefPath, brief);
  await context.append("iteration_started", { iteration, startSha, brief, briefPath });
}
