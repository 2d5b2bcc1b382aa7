/**
 * One read-only verifier turn through an engine itself, outside any loop: a worktree that holds the
 * fixed math.js, and beside it (outside the worktree, where a loop keeps them) a logs folder with the
 * tests gate's log, whose line `ok 1 - add (the gate log line)` shows when the engine read it; and the
 * turn folder, which holds the diff beside the maker's transcript (as a loop's iteration folder does),
 * whose line `MAKER-TRANSCRIPT-SECRET` must never reach a read-only turn.
 */
import { mkdir, mkdtemp, realpath, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { TurnRequest } from "../../src/core/engine.ts";
import { verdictJsonSchema } from "../../src/verify/verdict.ts";
import { fixedMath } from "./failing-projects.ts";

export interface ProbeFolders {
  root: string;
  /** The worktree the turn runs in. */
  cwd: string;
  /** The gate logs' folder beside it. */
  logs: string;
  cleanup(): Promise<void>;
}

/** New folders under a temporary root named `<prefix>…`. */
export async function createProbeFolders(prefix: string): Promise<ProbeFolders> {
  const root = await realpath(await mkdtemp(join(tmpdir(), prefix)));
  const cwd = join(root, "worktree");
  const logs = join(root, "logs");
  await mkdir(cwd);
  await mkdir(logs);
  await writeFile(join(cwd, "math.js"), fixedMath);
  await writeFile(join(logs, "tests.log"), "ok 1 - add (the gate log line)\n");
  await mkdir(join(root, "turn"));
  await writeFile(join(root, "turn", "maker-transcript.jsonl"), '{"note":"MAKER-TRANSCRIPT-SECRET"}\n');
  await writeFile(join(root, "turn", "diff.patch"), "--- a/math.js\n+++ b/math.js\n");
  return { root, cwd, logs, cleanup: () => rm(root, { recursive: true, force: true }) };
}

/**
 * The first verifier turn in `folders`, on the prompt `READ-ONLY PROBE: rule on the tests gate.`,
 * answering the verdict's schema; `fields` adds the environment or an event listener.
 */
export function probeRequest(folders: ProbeFolders, fields: Partial<TurnRequest> = {}): TurnRequest {
  return {
    role: "verifier",
    cwd: folders.cwd,
    prompt: "READ-ONLY PROBE: rule on the tests gate.",
    readOnly: true,
    outputSchema: verdictJsonSchema(),
    context: {
      gates: [{ id: "tests", logPath: join(folders.logs, "tests.log") }],
      diffPath: join(folders.root, "turn", "diff.patch"),
    },
    turnNumber: 1,
    wallClockMs: 60_000,
    maxCostUsd: 0,
    turnDirectory: join(folders.root, "turn"),
    runId: "readonly-run",
    stepId: "verifier-1",
    signal: new AbortController().signal,
    ...fields,
  };
}
