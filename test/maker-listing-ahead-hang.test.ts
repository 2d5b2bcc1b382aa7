/**
 * Review finding on h/iteration (2225c40, "the next maker turn's listing begins once a recheck's gates
 * have ended"): the maker checkout's listing (`git ls-files --others --exclude-standard`) now starts at
 * the end of a recheck, and EVERY step after it but `end_iteration`/`start_iteration` waits for it,
 * the verifier's, the confirmation's, `finish` and `stop` included, whether or not a maker turn follows.
 * git opens each .gitignore it meets in the listed folders without O_NONBLOCK: a FIFO there blocks it
 * forever. Gates run unsandboxed, so a recheck gate can plant one in the maker's checkout (a sibling
 * folder). Before, the maker's checkout was listed only by the next maker turn: a loop whose iteration
 * is verified on that recheck finished. Now it hangs before its verifier.
 */
import assert from "node:assert/strict";
import { closeSync, constants, openSync, readdirSync } from "node:fs";
import { join } from "node:path";
import { after, before, test } from "node:test";
import { createSandbox, type Sandbox } from "./support/loop-sandbox.ts";
import { readTimeline } from "./support/loop-timeline.ts";

let sandbox: Sandbox;
before(async () => {
  sandbox = await createSandbox({ "README.md": "# repo\n" });
});
after(() => sandbox.cleanup());

test("a FIFO .gitignore a recheck gate plants in the maker's checkout does not keep a verified loop from finishing", async () => {
  // Red on the grade, green on the recheck (a flake, reported), planting the FIFO then; green elsewhere.
  const gate = `case "$LOOPWRIGHT_STEP_TAG" in *-grade:*) exit 1 ;; *-recheck:*) mkfifo ../maker/.gitignore ;; esac; exit 0`;
  const spec = await sandbox.spec(
    `name: recheck-fifo
goal: Never reached.
repo: ./repo
maker:
  engine: scripted
  turns:
    - write: { work.txt: "iteration {{iteration}}\\n" }
gates: [{ id: flake, kind: tests-pass, run: '${gate}', flaky: report }]
budget: { maxIterations: 5 }
`,
    join(sandbox.root, "recheck-fifo.yaml"),
  );
  const run = await sandbox.cli(["run", spec], { timeoutMs: 60_000 });
  releaseFifoReaders(join(sandbox.home, "loops"));
  const events = readTimeline(sandbox);
  const phases = events
    .filter((event) => event.type === "gate_started")
    .map((event) => JSON.parse(event.data).phase);
  assert.deepEqual(phases.slice(0, 3), ["baseline", "grade", "recheck"]);
  const types = events.map((event) => event.type);
  assert.ok(types.includes("verifier_started"), `the verifier never started: ${types.join(" ")}`);
  assert.ok(types.includes("loop_stopped"), `the loop never stopped: ${types.join(" ")}`);
  assert.notEqual(run.code, null, "the run was killed after 60 s");
});

/** Opens (then closes) for writing every `maker/.gitignore` FIFO under `loops`: a git blocked opening it returns. */
function releaseFifoReaders(loops: string): void {
  for (const loop of readdirSync(loops)) {
    const fifo = join(loops, loop, "worktrees", "maker", ".gitignore");
    for (let attempt = 0; attempt < 5; attempt++) {
      try {
        closeSync(openSync(fifo, constants.O_WRONLY | constants.O_NONBLOCK));
      } catch {
        break; // No reader waits (ENXIO), or no FIFO.
      }
    }
  }
}
