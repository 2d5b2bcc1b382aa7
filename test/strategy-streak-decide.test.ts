/**
 * `strategy: streak` as a pure policy: the spec field, and what `decide` asks for on the base commit
 * and inside an iteration, replayed from in-memory timelines (no IO).
 */
import assert from "node:assert/strict";
import { test } from "node:test";
import { specSchema } from "../src/core/spec.ts";
import { recheckCommand } from "../src/gates/recheck-command.ts";
import { suiteRuns } from "../src/loop/strategies/suite-runs.ts";
import { FakeLoop, fakeSpec } from "./support/fake-loop.ts";

const suiteOnly = [{ id: "suite", kind: "tests-pass", run: "node --test" }];
const streak = (strategy: unknown = { kind: "streak", passes: 3, maxRuns: 8 }) =>
  fakeSpec({ strategy, gates: suiteOnly });

function issuesOf(input: Record<string, unknown>): string[] {
  const result = specSchema.safeParse({
    name: "x",
    goal: "g",
    maker: { engine: "command", run: "x" },
    ...input,
  });
  return result.success
    ? []
    : result.error.issues.map((issue) => `${issue.path.join(".")}: ${issue.message}`);
}

test("the strategy field: until-verified by default, a bare name takes the defaults, contradictions are errors", () => {
  assert.deepEqual(fakeSpec().strategy, { kind: "until-verified" });
  assert.deepEqual(fakeSpec({ strategy: "streak", gates: suiteOnly }).strategy, {
    kind: "streak",
    passes: 3,
    maxRuns: 20,
  });
  assert.deepEqual(issuesOf({ strategy: { kind: "streak", passes: 5, maxRuns: 4 }, gates: suiteOnly }), [
    "strategy.maxRuns: must be at least passes (5): a streak needs that many runs",
  ]);
  assert.match(
    issuesOf({ strategy: "streak" }).join("\n"),
    /strategy: streak needs a required deterministic gate/,
  );
  assert.deepEqual(
    issuesOf({ strategy: "streak", gates: [{ id: "suite", kind: "tests-pass", run: "x", rerun: 2 }] }),
    ["gates.0.rerun: streak re-runs the suite itself (strategy.passes); leave rerun out"],
  );
  assert.deepEqual(
    issuesOf({ strategy: "streak", gates: [{ id: "suite", kind: "tests-pass", run: "x", flaky: "report" }] }),
    ["gates.0.flaky: a streak exists to remove flakes: leave flaky out"],
  );
  assert.deepEqual(issuesOf({ gates: [{ id: "lint", kind: "lint-clean", run: "x", rerunFailed: "y" }] }), [
    "gates.0.rerunFailed: only for kind tests-pass",
  ]);
  assert.equal(issuesOf({ strategy: "forever" }).length, 1);
});

test("a suite that never fails on the base commit: passes runs there, then stop verified, nothing changed", () => {
  const loop = new FakeLoop(streak()).prepared();
  assert.deepEqual(loop.decide(), { kind: "run_gates", iteration: 0, phase: "confirm", gateIds: ["suite"] });
  loop.gatePassed("suite", "confirm");
  assert.deepEqual(loop.decide(), {
    kind: "run_gates",
    iteration: 0,
    phase: "confirm-2",
    gateIds: ["suite"],
  });
  loop.gatePassed("suite", "confirm-2");
  const stop = loop.decide();
  assert.equal(stop.kind, "stop");
  assert.equal(stop.kind === "stop" && stop.reason, "verified");
  assert.match(
    stop.kind === "stop" ? stop.message : "",
    /stable: 3 of 3 full runs passed on the base commit/,
  );
  assert.equal(loop.state().iterations.length, 0);
});

test("a red run on the base commit: only its failures rerun, then the maker's first iteration", () => {
  const loop = new FakeLoop(streak()).prepared();
  loop.gateFailed("suite", { phase: "confirm", failures: ["racy total"] });
  assert.deepEqual(loop.decide(), { kind: "run_gates", iteration: 0, phase: "recheck", gateIds: ["suite"] });
  loop.gatePassed("suite", "recheck");
  assert.deepEqual(loop.decide(), { kind: "start_iteration", iteration: 1 });
  assert.deepEqual(
    suiteRuns(loop.state()).map((run) => `${run.iteration}:${run.phase}:${run.passed}`),
    ["0:baseline:true", "0:confirm:false"],
    "the recheck is not a full run",
  );
});

test("in an iteration the suite must pass `passes` times in a row on the commit; a red confirmation reruns its failures and fails the iteration", () => {
  const loop = new FakeLoop(streak()).prepared();
  loop.gateFailed("suite", { phase: "confirm", failures: ["racy total"] }).gatePassed("suite", "recheck");
  loop.iteration().makerEnded().committed().screened().gatePassed("suite").verifierRuled("pass");
  assert.deepEqual(loop.decide(), { kind: "run_gates", iteration: 1, phase: "confirm", gateIds: ["suite"] });
  loop.gatePassed("suite", "confirm");
  assert.deepEqual(loop.decide(), {
    kind: "run_gates",
    iteration: 1,
    phase: "confirm-2",
    gateIds: ["suite"],
  });
  loop.gateFailed("suite", { phase: "confirm-2", failures: ["racy total"] });
  assert.deepEqual(loop.decide(), { kind: "run_gates", iteration: 1, phase: "recheck", gateIds: ["suite"] });
  loop.gatePassed("suite", "recheck");
  loop.endIteration();
  const ended = loop.state().iterations[0].ended;
  assert.equal(ended?.outcome, "failed");
  assert.deepEqual(ended?.failingGates, ["suite"]);
  assert.deepEqual(loop.decide(), { kind: "start_iteration", iteration: 2 });

  loop.iteration().makerEnded().committed().screened({ diff: "the fix" }).gatePassed("suite");
  loop.verifierRuled("pass").gatePassed("suite", "confirm").gatePassed("suite", "confirm-2");
  loop.endIteration();
  assert.equal(loop.state().iterations[1].ended?.outcome, "verified");
  assert.deepEqual(loop.decide(), { kind: "finish" });
});

test("maxRuns: an iteration that runs out of full runs ends over budget, and the loop stops budget_exhausted", () => {
  const loop = new FakeLoop(streak({ kind: "streak", passes: 3, maxRuns: 4 })).prepared();
  loop.gateFailed("suite", { phase: "confirm", failures: ["racy total"] }).gatePassed("suite", "recheck");
  loop.iteration().makerEnded().committed().screened().gatePassed("suite").verifierRuled("pass");
  loop.gatePassed("suite", "confirm");
  const end = loop.decide();
  assert.equal(end.kind, "end_iteration");
  assert.equal(end.kind === "end_iteration" && end.outcome, "over_budget");
  loop.endIteration();
  const stop = loop.decide();
  assert.equal(stop.kind === "stop" && stop.reason, "budget_exhausted");
});

test("rerunFailed filled in: go test, cargo test and mix test join node --test, jest, vitest and pytest", () => {
  assert.equal(
    recheckCommand("go test ./...", ["TestCart/totals/sums", "TestCart/receipt", "TestUnknownCode"]),
    "go test ./... -run '^(TestCart|TestUnknownCode)$'",
  );
  assert.equal(
    recheckCommand("cargo test", ["tests::totals::sums", "checkout_totals_match"]),
    "cargo test -- --exact tests::totals::sums checkout_totals_match",
  );
  assert.equal(
    recheckCommand("cargo test -- --test-threads=1", ["tests::a"]),
    "cargo test -- --test-threads=1 --exact tests::a",
  );
  assert.equal(recheckCommand("mix test", ["test totals (CartTest)"]), "mix test --failed");
  assert.equal(
    recheckCommand("node --test --test-reporter=tap", ["racy total"], ["test/total.test.js"]),
    "node --test --test-name-pattern='^racy total$' --test-reporter=tap 'test/total.test.js'",
    "a plain node --test is narrowed to the failing tests' files too",
  );
  assert.equal(
    recheckCommand("node --test test/", ["racy total"], ["test/total.test.js"]),
    "node --test --test-name-pattern='^racy total$' test/",
    "file arguments of the gate's own are kept as they are",
  );
  assert.equal(recheckCommand("go test ./... | tee log", ["TestA"]), undefined);
});

test("a commit that already failed a run cannot be verified by a later streak on it: nothing changed, nothing proved", () => {
  const loop = new FakeLoop(streak()).prepared();
  loop.gateFailed("suite", { phase: "confirm", failures: ["racy total"] }).gatePassed("suite", "recheck");
  // The maker changed nothing: its iteration grades the base commit again.
  loop
    .iteration()
    .makerEnded()
    .append("commit_created", {
      iteration: 1,
      sha: "b".repeat(40),
      committed: false,
      files: [],
    });
  loop.screened({ diff: "" }).gatePassed("suite");
  loop.verifierRuled("pass");
  const end = loop.decide();
  assert.equal(end.kind === "end_iteration" && end.outcome, "failed");
  assert.match(
    end.kind === "end_iteration" ? end.summary : "",
    /commit bbbbbbbbbb already failed a full run \(on the base commit\): passes on it prove nothing/,
  );
});
