/**
 * Engines that misbehave and the stop reasons they lead to, each a real loop through the real CLI: a
 * maker that crashes and a verifier that prints garbage break the circuit (exit 5), a maker that never
 * exits is killed at the wall clock and graded, a maker that never fixes anything exhausts the budget
 * (exit 3), and one that repeats itself is replanned once, then stopped for no progress (exit 4). After
 * every run no process started by the loop survives.
 */
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { answerGate, brief, createAnswerSandbox, runLoop } from "./support/guardrail-loops.ts";
import { eventsOf } from "./support/loop-events.ts";
import type { Sandbox } from "./support/loop-sandbox.ts";

let sandbox: Sandbox;
before(async () => {
  sandbox = await createAnswerSandbox();
});
after(() => sandbox.cleanup());

test("an engine that crashes three times breaks the circuit (exit 5) without spending the iteration budget", async () => {
  const run = await runLoop(
    sandbox,
    `name: crashing-engine
goal: answer.txt says 42.
repo: ./repo
maker: { engine: command, run: "echo 'engine exploded' >&2; exit 1" }
verifier: { engine: command, run: "cat" }
gates:
${answerGate}
budget: { maxIterations: 1 }
`,
  );
  assert.equal(run.code, 5, run.stderr);
  assert.equal(run.summary.stopReason, "circuit_broken");
  assert.deepEqual(
    run.summary.iterations.map((iteration) => iteration.outcome),
    ["infra_error", "infra_error", "infra_error"],
  );
  for (const iteration of run.summary.iterations) {
    assert.match(iteration.summary, /^maker crashed: .*exited with code 1: engine exploded$/);
  }
  assert.match(run.summary.stopMessage, /3 infrastructure errors in a row/);
});

test("a verifier that prints garbage or an inadmissible verdict is an infrastructure error; three in a row break the circuit", async () => {
  const run = await runLoop(
    sandbox,
    `name: bad-verifier
goal: answer.txt says 42.
repo: ./repo
maker:
  engine: scripted
  turns: [{ say: "attempt {{iteration}}", write: { answer.txt: "42\\n", attempt.txt: "{{iteration}}\\n" } }]
verifier: { engine: command, run: ./bad-verifier.sh }
gates:
${answerGate}
budget: { maxIterations: 2 }
`,
    {
      scripts: {
        "bad-verifier.sh": `#!/bin/sh
case "$LOOPWRIGHT_ITERATION" in
  1) echo "Looks good to me!" ;;
  2) echo '{"overall":"pass","gates":[]}' ;;
  3) echo '{"overall":"fail","gates":[{"id":"answer","passed":false,"reason":"the answer is not explained"}]}' ;;
  4) echo '{"overall":"pass","gates":[{"id":"answer","passed":true}]}' ;;
  5) echo '{"overall":"pass","gates":[{"id":"answer","passed":true,"evidence":[{"file":"answer.md","line":1}]}]}' ;;
  *) echo 'not json {' ;;
esac
`,
      },
    },
  );
  assert.equal(run.code, 5, run.stderr);
  assert.equal(run.summary.stopReason, "circuit_broken");
  // A valid rejection (iteration 3) resets the count: the circuit breaks on the third invalid in a row.
  assert.deepEqual(
    run.summary.iterations.map((iteration) => iteration.outcome),
    ["infra_error", "infra_error", "failed", "infra_error", "infra_error", "infra_error"],
  );
  const verifiers = eventsOf(run, "verifier_ended");
  assert.deepEqual(
    verifiers.map((ended) => ended.status),
    ["invalid", "invalid", "ruled", "invalid", "invalid", "invalid"],
  );
  const problems = [
    /not one JSON value: "Looks good to me!"/,
    /no ruling on gate 'answer'/,
    undefined,
    /gates\.answer: an approval needs evidence/,
    /gates\.answer: cites answer\.md, which does not exist in the commit/,
    /not one JSON value/,
  ];
  problems.forEach((problem, index) => {
    if (!problem) return;
    assert.match(verifiers[index].error ?? "", problem);
    assert.match(run.summary.iterations[index].summary, problem);
  });
});

test("a maker that never exits is killed at the wall clock; its partial work is committed and graded", async () => {
  const run = await runLoop(
    sandbox,
    `name: endless-maker
goal: answer.txt says 42.
repo: ./repo
maker: { engine: command, run: ./slow-maker.sh }
verifier: { engine: command, run: "cat" }
gates:
${answerGate}
budget: { maxIterations: 2, wallClockPerIteration: 2s }
`,
    {
      scripts: {
        "slow-maker.sh": `#!/bin/sh
echo "iteration $LOOPWRIGHT_ITERATION: started on the answer"
echo "partial work $LOOPWRIGHT_ITERATION" > partial.txt
if [ "$LOOPWRIGHT_ITERATION" = 1 ]; then sleep 300; fi
echo 41 > answer.txt
`,
      },
    },
  );
  assert.equal(run.code, 3, run.stderr);
  assert.deepEqual(
    eventsOf(run, "maker_ended").map((ended) => ended.status),
    ["timeout", "completed"],
  );
  const first = run.summary.iterations[0];
  assert.equal(
    first.outcome,
    "failed",
    "a timeout is a finished, failed attempt, not an infrastructure error",
  );
  assert.ok(first.commit);
  assert.equal(await sandbox.git("show", `${first.commit}:partial.txt`), "partial work 1");
  const graded = eventsOf(run, "gate_ended").filter((ended) => ended.iteration === 1);
  // Graded, then rechecked once (a red gate is re-run before an iteration is spent on it): same commit.
  assert.deepEqual(
    graded.map((ended) => [ended.result.phase, ended.result.sha]),
    [
      ["grade", first.commit],
      ["recheck", first.commit],
    ],
  );
  const next = await brief(sandbox, "endless-maker", 2);
  assert.match(next, /The maker ran out of time: its work so far was committed and graded\./);
  assert.match(next, /Iteration 1: iteration 1: started on the answer/);
});

test("budget_exhausted: a maker that keeps changing things but never fixes them stops at the cap, exit 3", async () => {
  const run = await runLoop(
    sandbox,
    `name: never-fixes
goal: answer.txt says 42.
repo: ./repo
maker:
  engine: scripted
  turns: [{ say: "tried {{iteration}}", write: { answer.txt: "{{iteration}}\\n" } }]
gates:
${answerGate}
budget: { maxIterations: 2 }
`,
  );
  assert.equal(run.code, 3, run.stderr);
  assert.equal(run.summary.stopReason, "budget_exhausted");
  assert.deepEqual(
    run.summary.iterations.map((iteration) => [iteration.outcome, iteration.repeat]),
    [
      ["failed", false],
      ["failed", false],
    ],
  );
  assert.match(run.stdout, /"reason":"budget_exhausted","message":"iteration budget spent \(2\)"/);
});

test("no_progress: the first repeat replans, the revised approach reaches the brief, the second repeat stops (exit 4, over the budget cap)", async () => {
  const run = await runLoop(
    sandbox,
    `name: stuck-maker
goal: answer.txt says 42.
repo: ./repo
maker: { engine: command, run: ./stuck-maker.sh }
verifier: { engine: command, run: "cat" }
gates:
${answerGate}
budget: { maxIterations: 3 }
`,
    {
      scripts: {
        "stuck-maker.sh": `#!/bin/sh
if [ "$LOOPWRIGHT_ROLE" = replanner ]; then
  echo '{"approach": "Read the failing gate before editing anything.", "hypotheses": ["the gate wants exactly 42"]}'
  exit 0
fi
echo 41 > answer.txt
echo "set the answer to 41"
`,
      },
    },
  );
  // At iteration 3 both no_progress and budget_exhausted hold: no_progress wins.
  assert.equal(run.code, 4, run.stderr);
  assert.equal(run.summary.stopReason, "no_progress");
  assert.deepEqual(
    run.summary.iterations.map((iteration) => [iteration.outcome, iteration.repeat]),
    [
      ["failed", false],
      ["failed", true],
      ["failed", true],
    ],
  );
  const replans = eventsOf(run, "replan_ended");
  assert.equal(replans.length, 1, "one replanning turn, after the first repeat");
  assert.deepEqual([replans[0].iteration, replans[0].status], [2, "completed"]);
  const third = await brief(sandbox, "stuck-maker", 3);
  assert.match(
    third,
    /## Revised approach\n.*\nRead the failing gate before editing anything\.\n\nHypotheses to test:\n- the gate wants exactly 42/,
  );
  assert.match(third, /Iteration 2 \[REPEAT/);
  assert.doesNotMatch(await brief(sandbox, "stuck-maker", 2), /Revised approach/);
});
