/** The metric strategy's section of the report: the noise floor and the results table, one row per attempt. Pure. */
import type { MetricStrategy } from "../../core/strategy-spec.ts";
import type { LoopState } from "../state.ts";
import { formatMetric as f, measurementOf, metricStanding } from "./metric-state.ts";

export function metricReport(state: LoopState, strategy: MetricStrategy): string[] {
  const base = measurementOf(state, 0, "base");
  if (!base) return [];
  const lines = ["## Metric", ""];
  const standing = metricStanding(state, strategy);
  if (!standing)
    return [...lines, `The metric command failed on the base commit: ${base.error ?? "no value"}.`];
  lines.push(
    `\`${strategy.run}\`, ${strategy.direction}, median of ${strategy.samples}. Base commit \`${base.sha.slice(0, 10)}\`: ${f(standing.base.median ?? 0)} (samples ${base.samples.map(f).join(", ")}); noise floor ${f(standing.noise)} (median absolute deviation, at least ${strategy.minNoise} × the base). Best kept: ${f(standing.best)} at \`${standing.bestSha.slice(0, 10)}\`; ${standing.kept} of ${state.metric?.judgements.length ?? 0} attempts kept.`,
    "",
    "| iteration | commit | samples | median | re-measured | kept | why |",
    "|---|---|---|---|---|---|---|",
  );
  for (const judgement of state.metric?.judgements ?? []) {
    const attempt = measurementOf(state, judgement.iteration, "attempt");
    const again = measurementOf(state, judgement.iteration, "remeasure");
    lines.push(
      `| ${judgement.iteration} | \`${judgement.sha.slice(0, 10)}\` | ${attempt?.samples.map(f).join(", ") || "–"} | ${attempt?.median === undefined ? "–" : f(attempt.median)} | ${again?.median === undefined ? "–" : f(again.median)} | ${judgement.kept ? "✓ kept" : `✗ reset${judgement.ref ? ` (\`${judgement.ref}\`)` : ""}`} | ${judgement.reason.replaceAll("|", "/")} |`,
    );
  }
  return lines;
}
