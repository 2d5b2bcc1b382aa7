/**
 * A `strategy: metric` loop's measurements and judgements, from its timeline, and what follows from
 * them: the noise floor, the best kept median and commit, the attempts since the last kept one. Pure.
 */
import type { EventPayloads, LoopEvent } from "../../core/events.ts";
import type { MetricStrategy } from "../../core/strategy-spec.ts";
import type { LoopState } from "../state.ts";

export type MetricMeasurement = EventPayloads["metric_measured"];
export type AttemptJudgement = EventPayloads["attempt_judged"];

export interface MetricState {
  measurements: MetricMeasurement[];
  judgements: AttemptJudgement[];
}

export function applyMetricEvent(state: LoopState, event: LoopEvent): LoopState {
  if (event.type !== "metric_measured" && event.type !== "attempt_judged") return state;
  const metric = state.metric ?? { measurements: [], judgements: [] };
  return {
    ...state,
    metric:
      event.type === "metric_measured"
        ? {
            ...metric,
            measurements: [
              ...metric.measurements.filter(
                (old) => !(old.iteration === event.data.iteration && old.phase === event.data.phase),
              ),
              event.data,
            ],
          }
        : { ...metric, judgements: [...metric.judgements, event.data] },
  };
}

export function median(values: readonly number[]): number {
  const sorted = [...values].sort((left, right) => left - right);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2;
}

/** The median absolute deviation of the base samples, at least `minNoise` × |base median|. */
export function noiseFloor(samples: readonly number[], minNoise: number): number {
  const center = median(samples);
  const deviation = median(samples.map((value) => Math.abs(value - center)));
  return Math.max(deviation, minNoise * Math.abs(center));
}

export function measurementOf(
  state: LoopState,
  iteration: number,
  phase: MetricMeasurement["phase"],
): MetricMeasurement | undefined {
  return state.metric?.measurements.find((entry) => entry.iteration === iteration && entry.phase === phase);
}

export interface MetricStanding {
  base: MetricMeasurement;
  noise: number;
  /** The best kept median (the base's until an attempt is kept), and its commit. */
  best: number;
  bestSha: string;
  kept: number;
  /** Judged attempts since the last kept one. */
  sinceKept: number;
}

/** Where the loop stands, once the base commit is measured (`undefined` before, or when that failed). */
export function metricStanding(state: LoopState, strategy: MetricStrategy): MetricStanding | undefined {
  const base = measurementOf(state, 0, "base");
  if (base?.median === undefined) return undefined;
  const judgements = state.metric?.judgements ?? [];
  const kept = judgements.filter((judgement) => judgement.kept);
  const last = kept.at(-1);
  const lastIndex = last ? judgements.lastIndexOf(last) : -1;
  return {
    base,
    noise: noiseFloor(base.samples, strategy.minNoise),
    best: last?.median ?? base.median,
    bestSha: last?.sha ?? base.sha,
    kept: kept.length,
    sinceKept: judgements.length - lastIndex - 1,
  };
}

/** Whether `value` beats `best` by more than `noise` in the strategy's direction. */
export function beats(strategy: MetricStrategy, value: number, best: number, noise: number): boolean {
  return strategy.direction === "minimize" ? value < best - noise : value > best + noise;
}

/** Whether `value` meets the target. */
export function meetsTarget(strategy: MetricStrategy, value: number): boolean {
  if (strategy.target === undefined) return false;
  return strategy.direction === "minimize" ? value <= strategy.target : value >= strategy.target;
}

/** A metric value as people read it: six significant digits, no float noise (0.010000000000000009 → 0.01). */
export function formatMetric(value: number): string {
  return String(Number(value.toPrecision(6)));
}
