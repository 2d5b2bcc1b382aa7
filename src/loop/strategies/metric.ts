/**
 * `strategy: metric`, keep or discard against a noise floor, as a policy. Before the first attempt the
 * base commit is measured `samples` times (the noise floor). In an attempt the verifier approves, the
 * attempt's commit is measured; a median that does not beat the best kept one by more than the noise
 * floor fails the iteration, one that does is measured once more (a lucky sample is not a win) and must
 * beat it again. After every attempt: kept (the branch stays on it) when the iteration was verified,
 * else discarded (the branch goes back to the best kept commit, the attempt kept under a ref). Stops:
 * `target_reached`, `plateau`, and the usual guardrails; the best kept commit is finished first. Pure.
 */
import type { MetricStrategy } from "../../core/strategy-spec.ts";
import type { Action } from "../decide.ts";
import type { IterationState, LoopState } from "../state.ts";
import { metricReport } from "./metric-report.ts";
import { beats, formatMetric, measurementOf, meetsTarget, metricStanding } from "./metric-state.ts";
import { type EndIteration, type StrategyPolicy, untilVerified } from "./strategy.ts";

export function metricPolicy(strategy: MetricStrategy): StrategyPolicy {
  return {
    ...untilVerified,
    afterApproval: (state, iteration) => afterApproval(strategy, state, iteration),
    afterIteration: (state, iteration) => afterIteration(strategy, state, iteration),
    beforeIteration: (state) => beforeIteration(strategy, state),
    finishesOnStop: (state) => (state.metric?.judgements ?? []).some((judgement) => judgement.kept),
    finalCommit: (state) => metricStanding(state, strategy)?.bestSha ?? state.baseSha,
    briefSection: (state) => metricBrief(strategy, state),
    reportSection: (state) => metricReport(state, strategy),
  };
}

function afterApproval(
  strategy: MetricStrategy,
  state: LoopState,
  iteration: IterationState,
): Action | EndIteration | undefined {
  const standing = metricStanding(state, strategy);
  if (!standing) return undefined;
  const format = formatMetric;
  for (const phase of ["attempt", "remeasure"] as const) {
    const measured = measurementOf(state, iteration.number, phase);
    if (!measured) return { kind: "measure_metric", iteration: iteration.number, phase };
    if (measured.median === undefined)
      return {
        kind: "end",
        outcome: "failed",
        summary: `the metric command failed: ${measured.error ?? "no value"}`,
      };
    if (!beats(strategy, measured.median, standing.best, standing.noise)) {
      const lucky = phase === "remeasure" ? "re-measured on the kept commit, " : "";
      return {
        kind: "end",
        outcome: "failed",
        summary: `${lucky}median ${format(measured.median)} does not beat the best ${format(standing.best)} by more than the noise floor ${format(standing.noise)}`,
      };
    }
  }
  return undefined;
}

/** After each attempt: keep or reset it; then the metric's own stops come before the other guardrails. */
function afterIteration(
  strategy: MetricStrategy,
  state: LoopState,
  iteration: IterationState,
): Action | "continue" | undefined {
  const judged = (state.metric?.judgements ?? []).some(
    (judgement) => judgement.iteration === iteration.number,
  );
  if (!judged)
    return {
      kind: "judge_attempt",
      iteration: iteration.number,
      kept: iteration.ended?.outcome === "verified",
    };
  return metricStop(strategy, state) ?? "continue";
}

function beforeIteration(strategy: MetricStrategy, state: LoopState): Action | undefined {
  if (!measurementOf(state, 0, "base")) return { kind: "measure_metric", iteration: 0, phase: "base" };
  return metricStop(strategy, state);
}

/** target_reached, plateau, or a base commit that could not be measured. */
function metricStop(strategy: MetricStrategy, state: LoopState): Action | undefined {
  const standing = metricStanding(state, strategy);
  if (!standing) {
    const error = measurementOf(state, 0, "base")?.error ?? "no value";
    return {
      kind: "stop",
      reason: "error",
      message: `the metric command failed on the base commit: ${error}`,
    };
  }
  if (meetsTarget(strategy, standing.best)) {
    const where =
      standing.kept > 0
        ? `the best kept attempt measures ${formatMetric(standing.best)}`
        : `the base commit measures ${formatMetric(standing.best)}`;
    return { kind: "stop", reason: "target_reached", message: `${where}, target ${strategy.target}` };
  }
  if (strategy.plateau > 0 && standing.sinceKept >= strategy.plateau) {
    return {
      kind: "stop",
      reason: "plateau",
      message: `${standing.sinceKept} attempts in a row without a kept change (plateau ${strategy.plateau}); best ${formatMetric(standing.best)}`,
    };
  }
  return undefined;
}

function metricBrief(strategy: MetricStrategy, state: LoopState): string | undefined {
  const standing = metricStanding(state, strategy);
  if (!standing) return undefined;
  const better = strategy.direction === "minimize" ? "lower" : "higher";
  const lines = [
    `## Metric: make \`${strategy.run}\` report a ${better} value`,
    `The metric is the first group of /${strategy.pattern}/ in its output, the median of ${strategy.samples} runs. ` +
      `Best kept so far: ${formatMetric(standing.best)} (base ${formatMetric(standing.base.median ?? 0)}). An attempt is kept only if it beats the best by more than the noise floor ${formatMetric(standing.noise)} ` +
      "on two measurements and every gate holds; otherwise the branch goes back to the best kept commit. " +
      "The evaluation is frozen: changing random seeds, sample counts or evaluation data is flagged and fails the attempt.",
  ];
  const judged = (state.metric?.judgements ?? []).slice(-10);
  if (judged.length > 0) {
    lines.push("Recent attempts:");
    for (const judgement of judged)
      lines.push(
        `- iteration ${judgement.iteration}: ${judgement.kept ? "KEPT" : "discarded"}: ${judgement.reason}`,
      );
  }
  return lines.join("\n");
}
