import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { type Action, fingerprintOf } from "../src/loop/decide.ts";
import { countedIterations } from "../src/loop/state.ts";
import { FakeLoop, fakeSpec } from "./support/fake-loop.ts";

const tests = { id: "tests", kind: "tests-pass", run: "node --test" };
const lint = { id: "lint", kind: "lint-clean", run: "npx biome check" };
const perf = { id: "perf", kind: "eval-script", run: "node bench/score.js", required: false };
const rollback = { id: "rollback", kind: "agent-check", assert: "The migration can be rolled back." };

function ended(action: Action) {
  assert.equal(action.kind, "end_iteration", JSON.stringify(action));
  return action as Extract<Action, { kind: "end_iteration" }>;
}

function stopReason(loop: FakeLoop): string {
  const action = loop.decide();
  assert.equal(action.kind, "stop", JSON.stringify(action));
  return (action as Extract<Action, { kind: "stop" }>).reason;
}

function started(loop: FakeLoop): number {
  const action = loop.decide();
  assert.equal(action.kind, "start_iteration", JSON.stringify(action));
  return (action as Extract<Action, { kind: "start_iteration" }>).iteration;
}

describe("within an iteration", () => {
  test("steps run in order: brief, maker, commit, screen, gates, verifier, confirmation, verified", () => {
    const loop = new FakeLoop(fakeSpec({ gates: [tests, lint, rollback] }));
    assert.deepEqual(loop.decide(), { kind: "prepare" });
    loop.prepared();
    assert.deepEqual(loop.decide(), { kind: "start_iteration", iteration: 1 });
    loop.iteration();
    assert.deepEqual(loop.decide(), { kind: "run_maker", iteration: 1, resume: false });
    loop.makerEnded();
    assert.deepEqual(loop.decide(), { kind: "commit", iteration: 1 });
    loop.committed();
    assert.deepEqual(loop.decide(), { kind: "screen", iteration: 1 });
    loop.screened();
    // The agent-check gate is the verifier's to rule on: no command runs for it.
    assert.deepEqual(loop.decide(), {
      kind: "run_gates",
      iteration: 1,
      phase: "grade",
      gateIds: ["tests", "lint"],
    });
    loop.gatePassed("tests");
    assert.deepEqual(loop.decide(), { kind: "run_gates", iteration: 1, phase: "grade", gateIds: ["lint"] });
    loop.gatePassed("lint");
    assert.deepEqual(loop.decide(), { kind: "run_verifier", iteration: 1 });
    loop.verifierRuled("pass");
    assert.deepEqual(loop.decide(), {
      kind: "run_gates",
      iteration: 1,
      phase: "confirm",
      gateIds: ["tests", "lint"],
    });
    loop.gatesPassed("confirm");
    const end = ended(loop.decide());
    assert.equal(end.outcome, "verified");
    assert.deepEqual(end.failingGates, []);
    assert.equal(end.fingerprint, undefined);
    loop.endIteration();
    assert.deepEqual(loop.decide(), { kind: "finish" });
    loop.finished();
    assert.equal(stopReason(loop), "verified");
    loop.stopped("verified");
    assert.deepEqual(loop.decide(), { kind: "idle", status: "stopped" });
  });

  test("a red required gate fails the iteration without asking the verifier", () => {
    const loop = new FakeLoop().prepared().iteration().makerEnded().committed().screened();
    loop.gateFailed("lint").gatePassed("tests");
    const end = ended(loop.decide());
    assert.equal(end.outcome, "failed");
    assert.deepEqual(end.failingGates, ["lint"]);
    assert.match(end.summary, /lint/);
    assert.ok(end.fingerprint);
    assert.equal(loop.state().iterations[0].verifier, undefined);
  });

  test("a red gate with required: false does not keep the verifier out or block verified", () => {
    const loop = new FakeLoop(fakeSpec({ gates: [tests, perf] }));
    loop.prepared().iteration().makerEnded().committed().screened();
    loop.gatePassed("tests").gateFailed("perf");
    assert.deepEqual(loop.decide(), { kind: "run_verifier", iteration: 1 });
    loop.verifierRuled("pass").gatePassed("tests", "confirm").gateFailed("perf", { phase: "confirm" });
    assert.equal(ended(loop.decide()).outcome, "verified");
  });

  test("a scope violation fails the iteration even when every gate is green; all gates still run", () => {
    const loop = new FakeLoop().prepared().iteration().makerEnded().committed([".env"]);
    loop.screened({ violations: [{ file: ".env", rule: "denied by .env*" }] });
    assert.equal(loop.decide().kind, "run_gates");
    loop.gatesPassed();
    const end = ended(loop.decide());
    assert.equal(end.outcome, "failed");
    assert.deepEqual(end.failingGates, ["scope"]);
    assert.match(end.summary, /\.env/);
    assert.ok(end.fingerprint);
  });

  for (const status of ["invalid", "crashed", "timeout"] as const) {
    test(`a verifier that ends ${status} is an infrastructure error, not the maker's failure`, () => {
      const loop = new FakeLoop().prepared().iteration().makerEnded().committed().screened().gatesPassed();
      loop.verifierEnded(status, { error: "gates: no ruling on gate 'lint'" });
      const end = ended(loop.decide());
      assert.equal(end.outcome, "infra_error");
      assert.match(end.summary, new RegExp(`verifier ${status}`));
      assert.equal(end.fingerprint, undefined);
      assert.equal(end.repeat, false);
    });
  }

  test("an interrupted verifier turn runs again", () => {
    const loop = new FakeLoop().prepared().iteration().makerEnded().committed().screened().gatesPassed();
    loop.verifierEnded("interrupted");
    assert.deepEqual(loop.decide(), { kind: "run_verifier", iteration: 1 });
  });

  test("a verifier rejection fails the iteration with verifier-approves and the rejected gate failing", () => {
    const loop = new FakeLoop(fakeSpec({ gates: [tests, rollback] }));
    loop.prepared().iteration().makerEnded().committed().screened().gatesPassed();
    loop.verifierRuled("fail", { rejected: ["rollback"] });
    const end = ended(loop.decide());
    assert.equal(end.outcome, "failed");
    assert.deepEqual(end.failingGates, ["rollback", "verifier-approves"]);
    assert.ok(end.fingerprint);
  });

  test("a gate that passes, then fails on the confirmation re-run of the same SHA, fails as flaky", () => {
    const loop = new FakeLoop().prepared().iteration().makerEnded().committed().screened().gatesPassed();
    loop.verifierRuled("pass").gatePassed("tests", "confirm");
    assert.deepEqual(loop.decide(), { kind: "run_gates", iteration: 1, phase: "confirm", gateIds: ["lint"] });
    loop.gateFailed("lint", { phase: "confirm" });
    const end = ended(loop.decide());
    assert.equal(end.outcome, "failed");
    assert.match(end.summary, /flaky: lint/);
    assert.deepEqual(end.failingGates, ["lint"]);
  });

  test("a maker that times out is a finished attempt: its work is committed, screened and graded", () => {
    const loop = new FakeLoop().prepared().iteration().makerEnded("timeout");
    assert.deepEqual(loop.decide(), { kind: "commit", iteration: 1 });
    loop.committed();
    assert.deepEqual(loop.decide(), { kind: "screen", iteration: 1 });
    loop.screened();
    assert.equal(loop.decide().kind, "run_gates");
    loop.gatesPassed();
    assert.deepEqual(loop.decide(), { kind: "run_verifier", iteration: 1 });
    loop.verifierRuled("fail");
    assert.equal(ended(loop.decide()).outcome, "failed");
  });

  test("a maker that crashes has its work committed, then the iteration is an infrastructure error", () => {
    const loop = new FakeLoop().prepared().iteration().makerEnded("crashed", { error: "exit 137" });
    assert.deepEqual(loop.decide(), { kind: "commit", iteration: 1 });
    loop.committed();
    const end = ended(loop.decide());
    assert.equal(end.outcome, "infra_error");
    assert.match(end.summary, /maker crashed: exit 137/);
    assert.equal(end.fingerprint, undefined);
  });

  test("a maker turn interrupted by a dead controller is re-run as a resume", () => {
    const loop = new FakeLoop().prepared().iteration().makerEnded("interrupted");
    assert.deepEqual(loop.decide(), { kind: "run_maker", iteration: 1, resume: true });
  });

  test("cancel during the maker: its work is committed, the iteration ends cancelled, the loop stops", () => {
    const loop = new FakeLoop().prepared().iteration().makerStarted().cancelRequested();
    loop.append("maker_ended", { iteration: 1, status: "cancelled", account: "", durationMs: 5 });
    assert.deepEqual(loop.decide(), { kind: "commit", iteration: 1 });
    loop.committed();
    const end = ended(loop.decide());
    assert.equal(end.outcome, "cancelled");
    assert.equal(end.fingerprint, undefined);
    loop.endIteration();
    assert.equal(stopReason(loop), "user_cancelled");
    loop.stopped("user_cancelled");
    assert.deepEqual(loop.decide(), { kind: "idle", status: "stopped" });
  });

  test("cancel during the gates ends the iteration cancelled instead of asking the verifier", () => {
    const loop = new FakeLoop().prepared().iteration().makerEnded().committed().screened();
    loop.cancelRequested();
    assert.equal(ended(loop.decide()).outcome, "cancelled");
  });

  test("cancel before the maker ran ends the iteration without a commit", () => {
    const loop = new FakeLoop().prepared().iteration().cancelRequested();
    assert.equal(ended(loop.decide()).outcome, "cancelled");
    loop.endIteration();
    assert.equal(stopReason(loop), "user_cancelled");
  });

  test("steering filed mid-iteration waits for the boundary: the iteration is graded on its own spec", () => {
    const loop = new FakeLoop().prepared().iteration().makerEnded().committed().screened();
    loop.steered({ removeGates: ["lint"] });
    assert.deepEqual(loop.decide(), {
      kind: "run_gates",
      iteration: 1,
      phase: "grade",
      gateIds: ["tests", "lint"],
    });
    loop.gatePassed("tests").gateFailed("lint").endIteration();
    assert.deepEqual(loop.decide(), { kind: "apply_steering" });
    loop.steeringApplied();
    assert.deepEqual(
      loop.state().spec.gates.map((gate) => gate.id),
      ["tests"],
    );
    assert.equal(started(loop), 2);
  });
});

describe("guardrails", () => {
  test("three infrastructure errors in a row break the circuit", () => {
    const loop = new FakeLoop(fakeSpec({ budget: { maxIterations: 0 } })).prepared();
    loop.infraError().infraError();
    assert.equal(started(loop), 3);
    loop.infraError();
    assert.equal(stopReason(loop), "circuit_broken");
    assert.match((loop.decide() as { message: string }).message, /3 infrastructure errors in a row/);
  });

  test("a graded iteration in between resets the circuit breaker's count", () => {
    const loop = new FakeLoop(fakeSpec({ budget: { maxIterations: 0 } })).prepared();
    loop
      .infraError()
      .infraError()
      .attempt({ failing: ["tests"] })
      .infraError()
      .infraError();
    assert.equal(started(loop), 6);
  });

  test("iterations lost to infrastructure errors do not spend the iteration budget", () => {
    const loop = new FakeLoop(fakeSpec({ budget: { maxIterations: 2 } })).prepared();
    loop
      .attempt({ diff: "A", failing: ["tests"] })
      .infraError()
      .infraError();
    assert.equal(started(loop), 4);
    loop.attempt({ diff: "B", failing: ["tests"] });
    assert.equal(stopReason(loop), "budget_exhausted");
    assert.match((loop.decide() as { message: string }).message, /iteration budget spent \(2\)/);
  });

  test("maxIterations 0 means no iteration limit", () => {
    const loop = new FakeLoop(fakeSpec({ budget: { maxIterations: 0 } })).prepared();
    for (let index = 0; index < 12; index++) loop.attempt({ diff: `change ${index}`, failing: ["tests"] });
    assert.equal(started(loop), 13);
  });

  test("no_progress wins over budget_exhausted when both hold", () => {
    const loop = new FakeLoop(fakeSpec({ budget: { maxIterations: 3 } })).prepared();
    loop.attempt({ diff: "A", failing: ["tests"] }).attempt({ diff: "A", failing: ["tests"] });
    loop.replanned("try something else").attempt({ diff: "A", failing: ["tests"] });
    const state = loop.state();
    assert.equal(countedIterations(state), 3);
    assert.equal(state.repeatsSinceSteer, 2);
    assert.equal(stopReason(loop), "no_progress");
  });

  test("circuit_broken wins over no_progress and budget_exhausted when all three hold", () => {
    const loop = new FakeLoop(fakeSpec({ budget: { maxIterations: 3 } })).prepared();
    loop.attempt({ diff: "A", failing: ["tests"] }).attempt({ diff: "A", failing: ["tests"] });
    loop.replanned("try something else").attempt({ diff: "A", failing: ["tests"] });
    // decide() would have stopped here; build the state where every guardrail holds at once.
    for (let index = 0; index < 3; index++) loop.iteration().iterationEnded({ outcome: "infra_error" });
    const state = loop.state();
    assert.equal(state.consecutiveInfraErrors, 3);
    assert.equal(state.repeatsSinceSteer, 2);
    assert.equal(countedIterations(state), 3);
    assert.equal(stopReason(loop), "circuit_broken");
  });

  test("circuit_broken wins over budget_exhausted", () => {
    const loop = new FakeLoop(fakeSpec({ budget: { maxIterations: 1 } })).prepared();
    loop
      .attempt({ failing: ["tests"] })
      .infraError()
      .infraError()
      .infraError();
    assert.equal(stopReason(loop), "circuit_broken");
  });

  test("the first repeat asks for one replanning turn; the second repeat stops with no_progress", () => {
    const loop = new FakeLoop(fakeSpec({ budget: { maxIterations: 0 } })).prepared();
    loop.attempt({ diff: "A", failing: ["tests"] }).attempt({ diff: "A", failing: ["tests"] });
    assert.equal(loop.state().iterations[1].ended?.repeat, true);
    assert.deepEqual(loop.decide(), { kind: "replan", afterIteration: 2 });
    loop.replanned("parse lazily");
    assert.equal(started(loop), 3);
    loop.attempt({ diff: "B", failing: ["tests"] });
    assert.equal(started(loop), 4);
    loop.attempt({ diff: "A", failing: ["tests"] });
    assert.equal(loop.state().iterations[3].ended?.repeat, true);
    assert.equal(stopReason(loop), "no_progress");
  });

  test("a replanning turn interrupted by a dead controller is run again", () => {
    const loop = new FakeLoop(fakeSpec({ budget: { maxIterations: 0 } })).prepared();
    loop.attempt({ diff: "A", failing: ["tests"] }).attempt({ diff: "A", failing: ["tests"] });
    loop.append("replan_started", { iteration: 2, turnNumber: 1 });
    loop.append("replan_ended", { iteration: 2, status: "interrupted" });
    assert.deepEqual(loop.decide(), { kind: "replan", afterIteration: 2 });
  });

  for (const request of [
    { goal: "The parser and the printer tests pass." },
    { addGates: [{ id: "types", kind: "build-succeeds", run: "npx tsc --noEmit" }] },
    { removeGates: ["lint"] },
  ]) {
    const what = Object.keys(request)[0];
    test(`steering ${what} resets the no-progress memory`, () => {
      const loop = new FakeLoop(fakeSpec({ budget: { maxIterations: 0 } })).prepared();
      loop.attempt({ diff: "A", failing: ["tests"] }).attempt({ diff: "A", failing: ["tests"] });
      loop.replanned("parse lazily").steered(request);
      assert.deepEqual(loop.decide(), { kind: "apply_steering" });
      loop.steeringApplied();
      assert.deepEqual(loop.state().fingerprintsSinceSteer, []);
      if (request.addGates) {
        // A gate added by steering is first run on the base commit, for its baseline.
        assert.deepEqual(loop.decide(), {
          kind: "run_gates",
          iteration: 0,
          phase: "baseline",
          gateIds: ["types"],
        });
        loop.baselined();
      }
      loop.attempt({ diff: "A", failing: ["tests"] });
      assert.equal(loop.state().iterations[2].ended?.repeat, false);
      assert.equal(started(loop), 4);
    });
  }

  test("steering the budget does not reset the no-progress memory", () => {
    const loop = new FakeLoop(fakeSpec({ budget: { maxIterations: 0 } })).prepared();
    loop.attempt({ diff: "A", failing: ["tests"] }).attempt({ diff: "A", failing: ["tests"] });
    loop
      .replanned("parse lazily")
      .steered({ budget: { maxIterations: 10 } })
      .steeringApplied();
    assert.equal(loop.state().spec.budget.maxIterations, 10);
    loop.attempt({ diff: "A", failing: ["tests"] });
    assert.equal(stopReason(loop), "no_progress");
  });

  test("a pause waits for the iteration boundary, and a resume starts the next iteration", () => {
    const loop = new FakeLoop().prepared().iteration().makerEnded().pauseRequested();
    assert.deepEqual(loop.decide(), { kind: "commit", iteration: 1 });
    loop.committed().screened().gateFailed("tests").gatePassed("lint").endIteration();
    assert.deepEqual(loop.decide(), { kind: "pause" });
    loop.paused();
    assert.deepEqual(loop.decide(), { kind: "idle", status: "paused" });
    loop.resumed();
    assert.equal(started(loop), 2);
  });

  test("a loop resumed after budget_exhausted with a raised budget continues", () => {
    const loop = new FakeLoop(fakeSpec({ budget: { maxIterations: 1 } })).prepared();
    loop.attempt({ failing: ["tests"] });
    assert.equal(stopReason(loop), "budget_exhausted");
    loop.stopped("budget_exhausted");
    loop.steered({ budget: { maxIterations: 2 } }).resumed();
    assert.deepEqual(loop.decide(), { kind: "prepare" });
    loop.prepared();
    assert.deepEqual(loop.decide(), { kind: "apply_steering" });
    loop.steeringApplied();
    assert.equal(started(loop), 2);
    loop.attempt({ failing: ["tests"] });
    assert.equal(stopReason(loop), "budget_exhausted");
  });

  test("a loop resumed after budget_exhausted without a new budget stops again", () => {
    const loop = new FakeLoop(fakeSpec({ budget: { maxIterations: 1 } })).prepared();
    loop
      .attempt({ failing: ["tests"] })
      .stopped("budget_exhausted")
      .resumed()
      .prepared();
    assert.equal(stopReason(loop), "budget_exhausted");
  });

  test("a loop resumed after no_progress with a new goal continues", () => {
    const loop = new FakeLoop(fakeSpec({ budget: { maxIterations: 0 } })).prepared();
    loop.attempt({ diff: "A", failing: ["tests"] }).attempt({ diff: "A", failing: ["tests"] });
    loop.replanned("parse lazily").attempt({ diff: "A", failing: ["tests"] });
    assert.equal(stopReason(loop), "no_progress");
    loop.stopped("no_progress").steered({ goal: "Only the tokenizer tests pass." }).resumed().prepared();
    assert.deepEqual(loop.decide(), { kind: "apply_steering" });
    loop.steeringApplied();
    // A new goal resets the no-progress memory: no replan for a repeat of the old goal, straight on.
    assert.equal(started(loop), 4);
  });
});

describe("fingerprints", () => {
  test("a fingerprint is the diff hash plus the failing gate set, in any order", () => {
    assert.equal(fingerprintOf("A", ["tests", "lint"]), fingerprintOf("A", ["lint", "tests"]));
    assert.notEqual(fingerprintOf("A", ["tests"]), fingerprintOf("A", ["lint"]));
    assert.notEqual(fingerprintOf("A", ["tests"]), fingerprintOf("A", ["tests", "lint"]));
    assert.notEqual(fingerprintOf("A", ["tests"]), fingerprintOf("B", ["tests"]));
  });

  test("the same change with a different failing set is not a repeat; the same change and set is", () => {
    const loop = new FakeLoop(fakeSpec({ budget: { maxIterations: 0 } })).prepared();
    loop.attempt({ diff: "A", failing: ["tests"] }).attempt({ diff: "A", failing: ["lint"] });
    const [first, second] = loop.state().iterations;
    assert.equal(first.ended?.fingerprint, fingerprintOf("A", ["tests"]));
    assert.equal(second.ended?.fingerprint, fingerprintOf("A", ["lint"]));
    assert.equal(second.ended?.repeat, false);
    loop.attempt({ diff: "A", failing: ["tests"] });
    assert.equal(loop.state().iterations[2].ended?.repeat, true);
  });

  test("a different change with the same failing set is not a repeat", () => {
    const loop = new FakeLoop(fakeSpec({ budget: { maxIterations: 0 } })).prepared();
    loop.attempt({ diff: "A", failing: ["tests"] }).attempt({ diff: "B", failing: ["tests"] });
    assert.equal(loop.state().iterations[1].ended?.repeat, false);
  });

  test("cancelled and infrastructure-error iterations leave no fingerprint and are never repeats", () => {
    const loop = new FakeLoop(fakeSpec({ budget: { maxIterations: 0 } })).prepared();
    loop.infraError().infraError();
    assert.deepEqual(loop.state().fingerprintsSinceSteer, []);
    assert.ok(loop.state().iterations.every((iteration) => iteration.ended?.repeat === false));
  });
});
