/**
 * Loops whose maker hangs for a while the first few times it runs, for tests that kill controllers in
 * the middle of a step, and the waits that find a run inside its maker's turn.
 */
import { readFileSync } from "node:fs";
import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import type { Sandbox } from "./loop-sandbox.ts";
import { type StoredRow, submit, timelines } from "./service-harness.ts";
import { waitFor } from "./wait-for.ts";

/** Submits a loop whose maker sleeps a minute the first `hangs` times it runs, then writes the answer. */
export async function submitHangingLoop(sandbox: Sandbox, name: string, hangs: number): Promise<void> {
  const counter = join(sandbox.root, `${name}.turns`);
  await writeFile(
    join(sandbox.root, `${name}.sh`),
    `#!/bin/sh
turns=$(cat ${counter} 2>/dev/null || echo 0)
echo $((turns + 1)) > ${counter}
if [ "$turns" -lt ${hangs} ]; then sleep 60; fi
echo 42 > ${name}.txt
`,
    { mode: 0o755 },
  );
  await submit(
    sandbox,
    name,
    `name: ${name}
goal: ${name}.txt says 42.
repo: ./repo
maker: { engine: command, run: ${join(sandbox.root, `${name}.sh`)} }
verifier: { engine: scripted, turns: [{ verdict: auto }] }
gates:
  - { id: answer, kind: tests-pass, run: "grep -qx 42 ${name}.txt" }
budget: { maxIterations: 10 }
`,
  );
}

/** How many turns the maker script of `name` has begun (it counts them in a file). */
export function makerTurns(sandbox: Sandbox, name: string): number {
  try {
    return Number(readFileSync(join(sandbox.root, `${name}.turns`), "utf8"));
  } catch {
    return 0;
  }
}

/** The runs of a loop, in order, as their `run_started` events. */
export const runsOf = (events: StoredRow[]) => events.filter((event) => event.type === "run_started");

/**
 * Waits for the `count`th run of `name` to be inside its maker's turn (the script has begun its turn);
 * returns that run's controller pid.
 */
export async function waitForMakerOfRun(sandbox: Sandbox, name: string, count: number): Promise<number> {
  let pid = 0;
  await waitFor(
    () => {
      const events = timelines(sandbox).get(name) ?? [];
      const runs = runsOf(events);
      if (runs.length < count) return false;
      const start = events.indexOf(runs[count - 1]);
      pid = Number(runs[count - 1].data.pid);
      return (
        events.slice(start).some((event) => event.type === "maker_started") &&
        makerTurns(sandbox, name) >= count
      );
    },
    `run ${count} of ${name} to be in its maker's turn`,
    60_000,
  );
  return pid;
}
