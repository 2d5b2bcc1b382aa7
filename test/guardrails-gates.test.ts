/**
 * Gates that misbehave, each a real loop through the real CLI: a gate that hangs past its timeout is red
 * "timed out" and killed while the loop goes on, and a gate that leaves a daemon behind has it killed.
 * After every run no process started by the loop survives.
 */
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { brief, createAnswerSandbox, runLoop } from "./support/guardrail-loops.ts";
import { eventsOf } from "./support/loop-events.ts";
import type { Sandbox } from "./support/loop-sandbox.ts";

let sandbox: Sandbox;
before(async () => {
  sandbox = await createAnswerSandbox();
});
after(() => sandbox.cleanup());

test("a gate that hangs past its timeout is red 'timed out', killed, and the loop goes on", async () => {
  const run = await runLoop(
    sandbox,
    `name: hanging-gate
goal: answer.txt says 42.
repo: ./repo
maker:
  engine: scripted
  turns: [{ say: "attempt {{iteration}}", write: { attempt.txt: "{{iteration}}\\n" } }]
gates:
  - { id: hangs, kind: tests-pass, run: "echo waiting forever; sleep 300", timeout: 1s }
  - { id: quick, kind: lint-clean, run: "true" }
budget: { maxIterations: 2 }
`,
  );
  assert.equal(run.code, 3, run.stderr);
  assert.equal(run.summary.stopReason, "budget_exhausted");
  assert.deepEqual(
    run.summary.iterations.map((iteration) => iteration.outcome),
    ["failed", "failed"],
  );
  for (const iteration of run.summary.iterations) {
    const hangs = iteration.gates.find((gate) => gate.id === "hangs");
    assert.deepEqual({ passed: hangs?.passed, timedOut: hangs?.timedOut }, { passed: false, timedOut: true });
    assert.equal(iteration.gates.find((gate) => gate.id === "quick")?.passed, true, "every gate runs");
  }
  assert.match(
    await brief(sandbox, "hanging-gate", 2),
    /### Gate hangs failed: timed out\n[\s\S]*waiting forever/,
  );
  const show = await sandbox.cli(["show", "hanging-gate"]);
  assert.match(show.stdout, /✗ hangs \[grade\] timed out after /);
});

test("a gate that leaves a daemon behind: the daemon is killed", async () => {
  const run = await runLoop(
    sandbox,
    `name: daemon-gate
goal: answer.txt says 42.
repo: ./repo
maker:
  engine: scripted
  turns: [{ say: "wrote 42", write: { answer.txt: "42\\n" } }]
gates:
  - { id: daemon, kind: tests-pass, run: "setsid sleep 300 & echo started a daemon", timeout: 20s }
`,
  );
  assert.equal(run.code, 0, run.stderr);
  const results = eventsOf(run, "gate_ended").map((ended) => ended.result);
  assert.deepEqual(
    results.map((result) => [result.phase, result.passed]),
    [
      ["baseline", true],
      ["grade", true],
      ["confirm", true],
    ],
  );
  for (const result of results) assert.ok(result.survivorsKilled >= 1, "the daemon was found and killed");
});
