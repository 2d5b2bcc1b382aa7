/**
 * Steering is the same for every strategy: a raised budget or a new goal applies at the next iteration
 * boundary and the strategy goes on where it was (pure: in-memory timelines through `decide`).
 */
import assert from "node:assert/strict";
import { test } from "node:test";
import { median } from "../src/loop/strategies/metric-state.ts";
import { FakeLoop, fakeSpec } from "./support/fake-loop.ts";

const suite = [{ id: "suite", kind: "tests-pass", run: "node --test" }];

test("streak: a raised iteration budget lets the streak go on; the runs so far still count", () => {
  const loop = new FakeLoop(
    fakeSpec({
      strategy: { kind: "streak", passes: 2, maxRuns: 10 },
      gates: suite,
      budget: { maxIterations: 1 },
    }),
  ).prepared();
  loop.gateFailed("suite", { phase: "confirm", failures: ["racy"] }).gatePassed("suite", "recheck");
  loop.attempt({ failing: ["suite"] });
  assert.equal(loop.decide().kind, "stop", "the iteration budget is spent");
  loop.steered({ budget: { maxIterations: 3 } }).steeringApplied();
  assert.deepEqual(loop.decide(), { kind: "start_iteration", iteration: 2 });
  loop
    .iteration()
    .makerEnded()
    .committed()
    .screened({ diff: "fix" })
    .gatePassed("suite")
    .verifierRuled("pass");
  loop.gatePassed("suite", "confirm").endIteration();
  assert.equal(loop.state().iterations[1].ended?.outcome, "verified", "2 passes in a row after steering");
});

test("tasks: a new goal keeps the current task and its criteria; the next brief quotes the change", () => {
  const loop = new FakeLoop(fakeSpec({ strategy: { kind: "tasks", file: "tasks.md" } })).prepared();
  loop.append("tasks_read", {
    file: "tasks.md",
    format: "markdown",
    sha: "b".repeat(40),
    tasks: [{ id: "1", title: "First", criteria: ["one works"], done: false }],
  });
  loop.attempt({ failing: ["tests"] });
  loop.steered({ goal: "First, but in Rust." }).steeringApplied();
  assert.deepEqual(loop.decide(), { kind: "start_iteration", iteration: 2 });
  loop.iteration();
  const state = loop.state();
  assert.equal(state.spec.goal, "First, but in Rust.");
  assert.equal(state.iterations[1].task, "1");
  assert.deepEqual(
    state.spec.gates.filter((gate) => gate.id.startsWith("criterion-")).map((gate) => gate.assert),
    ["one works"],
    "one criterion gate, not a copy per steer",
  );
});

test("metric: a gate added by steering gets its baseline; the base measurement and best stay", () => {
  const loop = new FakeLoop(
    fakeSpec({
      strategy: { kind: "metric", run: "node score.js", pattern: "score: ([0-9.]+)", direction: "minimize" },
      gates: suite,
    }),
  ).prepared();
  const samples = [1.01, 0.99, 1];
  loop.append("metric_measured", {
    iteration: 0,
    phase: "base",
    sha: "b".repeat(40),
    samples,
    median: median(samples),
    logPaths: [],
  });
  loop.steered({ addGates: [{ id: "lint", kind: "lint-clean", run: "npx biome check" }] }).steeringApplied();
  assert.deepEqual(loop.decide(), { kind: "run_gates", iteration: 0, phase: "baseline", gateIds: ["lint"] });
  loop.baselined();
  assert.deepEqual(loop.decide(), { kind: "start_iteration", iteration: 1 }, "no second base measurement");
});
