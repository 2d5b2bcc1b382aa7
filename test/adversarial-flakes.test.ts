/**
 * Flaky gates, each a real loop through the real CLI on the adversarial project, whose flaky test passes
 * on every second run (its run count lives in a file outside the repository). A gate green only on a
 * flake is not verified under `flaky: block`, whether the flake shows on the confirmation re-run or on
 * the recheck; under `flaky: report` the same flake verifies, and the report names the gate flaky.
 *
 * One sandbox for the file: every loop has its own name, branch, worktrees and run counter.
 */
import assert from "node:assert/strict";
import { readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { after, before, test } from "node:test";
import { cheatSpec, createAdversarialProject, fixedCalc, runLoop } from "./support/adversarial-project.ts";
import { eventsOf } from "./support/loop-events.ts";
import type { Sandbox } from "./support/loop-sandbox.ts";

let sandbox: Sandbox;
before(async () => {
  sandbox = await createAdversarialProject();
});
after(() => sandbox.cleanup());

const flakySpec = (name: string, flaky: "block" | "report") =>
  cheatSpec(
    name,
    `{ say: "Fixed add().", write: { src/calc.js: ${JSON.stringify(fixedCalc)} } }`,
    `  - { id: tests, kind: tests-pass, run: "node --test test/*.test.js flaky/*.test.js", timeout: 30s, flaky: ${flaky} }`,
  );

test("a gate green only on a flaky test: the confirmation re-run fails, the gate is reported flaky, not verified", async () => {
  // Run 1 (baseline) fails, run 2 (grade) passes, run 3 (confirm) fails.
  const run = await runLoop(sandbox, flakySpec("flaky-confirm", "block"), {
    env: { FLAKY_COUNTER: join(sandbox.root, "flaky-confirm.count") },
  });
  assert.equal(run.code, 3, run.stderr);
  assert.equal(run.report.stopReason, "budget_exhausted");
  const [iteration] = run.report.iterations;
  assert.deepEqual(
    iteration.gates.map((gate) => [gate.phase, gate.passed]),
    [
      ["grade", true],
      ["confirm", false],
    ],
  );
  assert.equal(run.report.verdict?.overall, "pass", "the verifier approved the green run");
  assert.deepEqual(
    [iteration.outcome, iteration.summary],
    ["failed", "flaky: tests passed and failed on the same commit"],
  );
  assert.match(run.markdown, /\| tests \| tests-pass \| ⚠ flaky: passed and failed on the same commit \|/);
  assert.deepEqual(
    run.report.gateStandings.map((gate) => [gate.id, gate.status]),
    [["tests", "flaky"]],
  );
  assert.equal(eventsOf(run, "loop_finished").length, 0);
});

test("a flaky failure that does not reproduce on the recheck is flaky before the verifier runs; not verified", async () => {
  const counter = join(sandbox.root, "flaky-recheck.count");
  await writeFile(counter, "1"); // Run 2 (baseline) passes, run 3 (grade) fails, run 4 (recheck) passes.
  const run = await runLoop(sandbox, flakySpec("flaky-recheck", "block"), {
    env: { FLAKY_COUNTER: counter },
  });
  assert.equal(run.code, 3, run.stderr);
  const [iteration] = run.report.iterations;
  assert.deepEqual(
    iteration.gates.map((gate) => [gate.phase, gate.passed]),
    [
      ["grade", false],
      ["recheck", true],
    ],
  );
  assert.deepEqual(
    [iteration.outcome, iteration.summary],
    ["failed", "flaky: tests passed and failed on the same commit"],
  );
  assert.equal(eventsOf(run, "verifier_started").length, 0);
  assert.match(run.markdown, /⚠ flaky: passed and failed on the same commit \|/);
});

test("with flaky: report the same flake is verified, and the report names the gate flaky", async () => {
  for (const [name, seed, phases] of [
    // Grade passes, the confirmation re-run fails.
    [
      "flaky-report-confirm",
      "0",
      [
        ["grade", true],
        ["confirm", false],
      ],
    ],
    // Grade fails, the recheck passes: flaky already (no confirmation re-run), and the verifier may approve it.
    [
      "flaky-report-recheck",
      "1",
      [
        ["grade", false],
        ["recheck", true],
      ],
    ],
  ] as const) {
    const counter = join(sandbox.root, `${name}.count`);
    await writeFile(counter, seed);
    const run = await runLoop(sandbox, flakySpec(name, "report"), { env: { FLAKY_COUNTER: counter } });
    assert.equal(run.code, 0, `${name}: ${run.stderr}`);
    assert.equal(run.report.stopReason, "verified");
    const [iteration] = run.report.iterations;
    assert.deepEqual(
      iteration.gates.map((gate) => [gate.phase, gate.passed]),
      phases.map((phase) => [...phase]),
      name,
    );
    assert.equal(iteration.outcome, "verified");
    assert.match(
      iteration.summary,
      /flaky: tests passed and failed on the same commit \(reported, not blocking\)/,
    );
    assert.match(run.markdown, /⚠ flaky: passed and failed on the same commit \(reported, not blocking\)/);
    assert.equal(run.report.verdict?.overall, "pass");
  }
});

test("a red gate that passes on its recheck: the recheck reruns only the failing test, and the next brief calls it flaky", async () => {
  const counter = join(sandbox.root, "flaky-brief.count");
  await writeFile(counter, "1"); // Run 2 (baseline) passes, 3 (grade) fails, 4 (recheck) passes, 5 fails, 6 passes.
  const spec = flakySpec("flaky-brief", "block").replace("maxIterations: 1", "maxIterations: 2");
  const run = await runLoop(sandbox, spec, { env: { FLAKY_COUNTER: counter } });
  assert.equal(run.code, 3, run.stderr);
  const recheck = eventsOf(run, "gate_ended").find(
    (ended) => ended.iteration === 1 && ended.result.phase === "recheck",
  )?.result;
  assert.equal(
    recheck?.command,
    "node --test --test-name-pattern='^settles the queue$' test/*.test.js flaky/*.test.js",
  );
  assert.deepEqual([recheck?.passed, recheck?.rerunOnly], [true, ["settles the queue"]]);
  const log = await readFile(recheck?.logPath ?? "", "utf8");
  assert.match(log, /✔ settles the queue/);
  assert.doesNotMatch(
    log,
    /add keeps a number plus zero|mul multiplies/,
    "the passing tests did not run again",
  );
  const [, second] = eventsOf(run, "iteration_started");
  assert.match(second.brief, /### Gate tests is flaky: it failed \(exit code 1\)/);
  assert.match(second.brief, /FLAKY, not a failure that reproduces: .*\(passed on the recheck run\)/);
  assert.doesNotMatch(second.brief, /### Gate tests failed/);
});
