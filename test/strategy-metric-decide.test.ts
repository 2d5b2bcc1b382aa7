/**
 * `strategy: metric` as pure parts: the spec, the noise floor, what `decide` asks for (measure, keep,
 * reset, target, plateau, finish first), and the frozen-evaluator screen, on in-memory timelines.
 */
import assert from "node:assert/strict";
import { test } from "node:test";
import type { EventPayloads } from "../src/core/events.ts";
import { specSchema } from "../src/core/spec.ts";
import { median, noiseFloor } from "../src/loop/strategies/metric-state.ts";
import { evaluationFlags } from "../src/loop/strategies/metric-tamper.ts";
import { FakeLoop, fakeSpec } from "./support/fake-loop.ts";

const metric = (extra: Record<string, unknown> = {}) =>
  fakeSpec({
    strategy: {
      kind: "metric",
      run: "node score.js",
      pattern: "score: ([0-9.]+)",
      direction: "minimize",
      ...extra,
    },
    gates: [{ id: "tests", kind: "tests-pass", run: "node --test" }],
  });

function measured(
  loop: FakeLoop,
  iteration: number,
  phase: EventPayloads["metric_measured"]["phase"],
  samples: number[],
): FakeLoop {
  return loop.append("metric_measured", {
    iteration,
    phase,
    sha: iteration === 0 ? "b".repeat(40) : (loop.state().iterations.at(-1)?.commit?.sha ?? ""),
    samples,
    median: median(samples),
    logPaths: [],
  });
}

function judged(loop: FakeLoop, kept: boolean, value = 0): FakeLoop {
  const action = loop.decide();
  assert.equal(action.kind, "judge_attempt");
  assert.equal(action.kind === "judge_attempt" && action.kept, kept);
  const iteration = loop.state().iterations.at(-1);
  return loop.append("attempt_judged", {
    iteration: iteration?.number ?? 0,
    sha: iteration?.commit?.sha ?? "",
    kept,
    median: value,
    best: 1,
    noise: 0.01,
    keptSha: "k".repeat(40),
    reason: kept ? "kept" : "not kept",
  });
}

/** One attempt through the verifier; `values` are its medians (attempt, then re-measure). */
function attempt(loop: FakeLoop, values: number[]): FakeLoop {
  loop
    .iteration()
    .makerEnded()
    .committed()
    .screened({ diff: `attempt ${loop.state().iterations.length}` })
    .gatesPassed()
    .verifierRuled("pass");
  for (const [index, value] of values.entries()) {
    const phase = index === 0 ? "attempt" : "remeasure";
    const asked = loop.decide();
    assert.deepEqual(asked, {
      kind: "measure_metric",
      iteration: loop.state().iterations.at(-1)?.number,
      phase,
    });
    measured(loop, loop.state().iterations.at(-1)?.number ?? 0, phase, [value + 0.01, value - 0.01, value]);
  }
  if (loop.decide().kind === "run_gates") loop.gatesPassed("confirm");
  return loop.endIteration();
}

test("the metric spec: a pattern needs a capture group; samples, plateau and noise have defaults", () => {
  const strategy = metric().strategy;
  assert.equal(strategy.kind === "metric" && strategy.samples, 3);
  assert.equal(strategy.kind === "metric" && strategy.plateau, 8);
  assert.equal(strategy.kind === "metric" && strategy.timeout, 1_800_000);
  const bad = specSchema.safeParse({
    name: "x",
    goal: "g",
    maker: { engine: "command", run: "x" },
    strategy: { kind: "metric", run: "x", pattern: "score: [0-9.]+", direction: "minimize" },
  });
  assert.equal(bad.success, false);
  assert.match(JSON.stringify(bad.error?.issues), /a capture group/);
});

test("the noise floor is the base samples' median absolute deviation, at least minNoise × the median", () => {
  assert.equal(median([3, 1, 2]), 2);
  assert.equal(median([4, 1, 2, 3]), 2.5);
  assert.ok(Math.abs(noiseFloor([1.01, 0.99, 1.0], 0.001) - 0.01) < 1e-12);
  assert.equal(noiseFloor([1, 1, 1], 0.001), 0.001);
});

test("base measured first; an attempt that beats the floor twice is kept, one that does not is reset", () => {
  const loop = new FakeLoop(metric()).prepared();
  assert.deepEqual(loop.decide(), { kind: "measure_metric", iteration: 0, phase: "base" });
  measured(loop, 0, "base", [1.01, 0.99, 1.0]);
  assert.deepEqual(loop.decide(), { kind: "start_iteration", iteration: 1 });
  attempt(loop, [0.9, 0.9]);
  assert.equal(loop.state().iterations[0].ended?.outcome, "verified");
  judged(loop, true, 0.9);
  assert.deepEqual(loop.decide(), { kind: "start_iteration", iteration: 2 });
  attempt(loop, [0.895]);
  assert.match(
    loop.state().iterations[1].ended?.summary ?? "",
    /median 0.895 does not beat the best 0.9 by more than the noise floor 0.01/,
  );
  judged(loop, false);
  assert.deepEqual(loop.decide(), { kind: "start_iteration", iteration: 3 });
});

test("a lucky sample: the re-measure must beat the best too", () => {
  const loop = new FakeLoop(metric()).prepared();
  measured(loop, 0, "base", [1.01, 0.99, 1.0]);
  attempt(loop, [0.9, 0.999]);
  assert.equal(loop.state().iterations[0].ended?.outcome, "failed");
  assert.match(
    loop.state().iterations[0].ended?.summary ?? "",
    /re-measured on the kept commit, median 0.999/,
  );
});

test("target_reached and plateau stop the loop, after finishing the best kept commit", () => {
  const target = new FakeLoop(metric({ target: 0.95 })).prepared();
  measured(target, 0, "base", [1.01, 0.99, 1.0]);
  attempt(target, [0.9, 0.9]);
  target.append("attempt_judged", {
    iteration: 1,
    sha: "01".padEnd(40, "c"),
    kept: true,
    median: 0.9,
    best: 1,
    noise: 0.01,
    keptSha: "01".padEnd(40, "c"),
    reason: "kept",
  });
  assert.deepEqual(target.decide(), { kind: "finish" });
  target.finished();
  const stop = target.decide();
  assert.equal(stop.kind === "stop" && stop.reason, "target_reached");

  const flat = new FakeLoop(metric({ plateau: 2 })).prepared();
  measured(flat, 0, "base", [1.01, 0.99, 1.0]);
  attempt(flat, [1.0]);
  judged(flat, false);
  attempt(flat, [1.0]);
  judged(flat, false);
  const plateau = flat.decide();
  assert.equal(plateau.kind === "stop" && plateau.reason, "plateau", "nothing kept: no finish");
});

test("the frozen evaluator: seeds, sample counts and evaluation data are flagged; other changes are not", () => {
  const diff = (file: string, removed: string, added: string) =>
    `diff --git a/${file} b/${file}\n--- a/${file}\n+++ b/${file}\n@@ -1,1 +1,1 @@\n-${removed}\n+${added}\n`;
  assert.deepEqual(
    evaluationFlags(diff("train.py", "torch.manual_seed(42)", "torch.manual_seed(7)")).map(
      (flag) => flag.detail,
    ),
    ["a random seed changed: removed torch.manual_seed(42)"],
  );
  assert.equal(evaluationFlags(diff("params.json", '  "seed": 1', '  "seed": 2')).length, 1);
  assert.equal(evaluationFlags(diff("eval.py", "EVAL_SAMPLES = 100", "EVAL_SAMPLES = 10")).length, 1);
  assert.equal(evaluationFlags(diff("config.py", "num_samples = 3", "num_samples = 1")).length, 1);
  assert.equal(evaluationFlags(diff("data/val.jsonl", '{"x": 1}', '{"x": 2}')).length, 1);
  assert.deepEqual(evaluationFlags(diff("train.py", "lr = 0.1", "lr = 0.05")), []);
});
