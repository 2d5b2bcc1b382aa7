/**
 * Review findings on h/iteration: work begun ahead for a step that may never come is waited for by the
 * steps that do come. (1) 2225c40: the maker checkout's listing (`git ls-files --others
 * --exclude-standard`) starts at the end of a recheck, and every step after it but `end_iteration` and
 * `start_iteration` waits for it (the verifier's, a confirmation's, `finish`, `stop`), a maker turn
 * following or not. (2) 5f39b93: the recheck's checkout (`clean`, `read-tree`) starts after ANY grade
 * where a required gate exited non-zero, also when its baseline policy passes it and no recheck is due,
 * and the next step waits for it. git opens each .gitignore it meets without O_NONBLOCK: a FIFO there
 * blocks it for good. Gates run unsandboxed, so a gate can plant one in either checkout. Before (the
 * merge base 7c5dd53 passes both tests), neither checkout was touched again by a loop that then
 * verified and finished; now it hangs before its verifier.
 */
import assert from "node:assert/strict";
import { closeSync, constants, openSync, readdirSync } from "node:fs";
import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import { after, before, test } from "node:test";
import { createSandbox, type Sandbox } from "./support/loop-sandbox.ts";
import { eventsIn, readTimeline } from "./support/loop-timeline.ts";

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

test("a FIFO .gitignore a gate plants in the gates' checkout on a red grade its baseline accepts (no recheck) does not keep the loop from finishing", async () => {
  // The same pre-existing failure on the base and on the grade: \`no-new-failures\` passes it, no recheck is
  // due, yet the grade began the recheck's checkout, which the verifier's step waits for.
  const script = join(sandbox.root, "old-failure.sh");
  await writeFile(
    script,
    `printf 'TAP version 13\\nnot ok 1 - old failure\\n1..1\\n# tests 1\\n# pass 0\\n# fail 1\\n'
case "$LOOPWRIGHT_STEP_TAG" in *-grade:*) mkfifo .gitignore ;; esac
exit 1
`,
  );
  const spec = await sandbox.spec(
    `name: grade-fifo
goal: Never reached.
repo: ./repo
maker:
  engine: scripted
  turns:
    - write: { work.txt: "iteration {{iteration}}\\n" }
gates: [{ id: old, kind: tests-pass, run: "sh ${script}", baseline: no-new-failures, rerun: 0 }]
budget: { maxIterations: 5 }
`,
    join(sandbox.root, "grade-fifo.yaml"),
  );
  const run = await sandbox.cli(["run", spec, "--json"], { timeoutMs: 60_000 });
  releaseFifoReaders(join(sandbox.home, "loops"), "gates");
  const types = eventsIn(run.stdout).map((event) => event.type);
  assert.ok(types.includes("verifier_started"), `the verifier never started: ${types.join(" ")}`);
  assert.ok(types.includes("loop_stopped"), `the loop never stopped: ${types.join(" ")}`);
});

/** Opens (then closes) for writing every `<checkout>/.gitignore` FIFO under `loops`: a git blocked opening it returns. */
function releaseFifoReaders(loops: string, checkout = "maker"): void {
  for (const loop of readdirSync(loops)) {
    const fifo = join(loops, loop, "worktrees", checkout, ".gitignore");
    for (let attempt = 0; attempt < 5; attempt++) {
      try {
        closeSync(openSync(fifo, constants.O_WRONLY | constants.O_NONBLOCK));
      } catch {
        break; // No reader waits (ENXIO), or no FIFO.
      }
    }
  }
}
