/** A loop's strategy and what it found, as data for `report --json`, the API and the dashboard. Pure. */
import type { LoopState } from "../state.ts";
import { type MetricState, measurementOf, metricStanding } from "./metric-state.ts";
import { streakProofStatement } from "./streak-report.ts";
import { type StreakStatistics, streakStatistics } from "./streak-statistics.ts";
import { suiteRuns } from "./suite-runs.ts";
import { currentTask, type TaskRecord } from "./task-state.ts";

/** One full run of the suite, green or red, with the tests it failed (`gate › test`). */
export interface StreakRun {
  iteration: number;
  phase: string;
  sha: string;
  passed: boolean;
  failing: string[];
}

/** One row of a metric loop's results table. */
export interface MetricAttempt {
  iteration: number;
  sha: string;
  samples: number[];
  median?: number;
  /** The median of the re-measurement a kept result gets before it becomes the best. */
  remeasured?: number;
  kept: boolean;
  reason: string;
  /** Where a reset attempt stays reachable. */
  ref?: string;
  /** The best kept median after this attempt. */
  bestAfter: number;
}

/** Where a metric loop stands: the base, the noise floor, the best kept median. */
export interface MetricSummary {
  direction: "minimize" | "maximize";
  samples: number;
  baseSha: string;
  baseMedian: number;
  noise: number;
  best: number;
  bestSha: string;
  kept: number;
  target?: number;
}

export interface StrategyData {
  kind: string;
  /** streak: runs, failure counts and rates per test, the final streak and its 95% bound. */
  streak?: StreakStatistics & {
    passes: number;
    maxRuns: number;
    runs: StreakRun[];
    /** What the final clean streak proves, in the report's words. */
    proves?: string;
  };
  /** tasks: every task and where it stands. */
  tasks?: TaskRecord[];
  /** tasks: the task list's file, and the task the next (or running) iteration works on. */
  taskFile?: string;
  currentTaskId?: string;
  /** metric: every measurement and every attempt's judgement (the results table). */
  metric?: MetricState & { summary?: MetricSummary; attempts: MetricAttempt[] };
}

export function strategyData(state: LoopState): StrategyData {
  const strategy = state.spec.strategy;
  const kind = strategy.kind;
  if (strategy.kind === "streak") {
    const statistics = streakStatistics(state);
    const runs = suiteRuns(state)
      .filter((run) => run.complete)
      .map((run) => ({
        iteration: run.iteration,
        phase: run.phase,
        sha: run.sha,
        passed: run.passed,
        failing: Object.entries(run.failures).flatMap(([gateId, names]) =>
          names.map((name) => (name === gateId ? gateId : `${gateId} › ${name}`)),
        ),
      }));
    const proves = streakProofStatement(statistics);
    return {
      kind,
      streak: {
        ...statistics,
        passes: strategy.passes,
        maxRuns: strategy.maxRuns,
        runs,
        ...(proves ? { proves } : {}),
      },
    };
  }
  if (strategy.kind === "tasks") {
    const current = currentTask(state);
    return {
      kind,
      tasks: state.tasks?.tasks ?? [],
      ...(state.tasks ? { taskFile: state.tasks.file } : {}),
      ...(current ? { currentTaskId: current.id } : {}),
    };
  }
  if (strategy.kind === "metric") {
    const metric = state.metric ?? { measurements: [], judgements: [] };
    const standing = metricStanding(state, strategy);
    let best = standing?.base.median ?? 0;
    const attempts = metric.judgements.map((judgement): MetricAttempt => {
      if (judgement.kept && judgement.median !== undefined) best = judgement.median;
      const attempt = measurementOf(state, judgement.iteration, "attempt");
      const again = measurementOf(state, judgement.iteration, "remeasure");
      return {
        iteration: judgement.iteration,
        sha: judgement.sha,
        samples: attempt?.samples ?? [],
        ...(attempt?.median === undefined ? {} : { median: attempt.median }),
        ...(again?.median === undefined ? {} : { remeasured: again.median }),
        kept: judgement.kept,
        reason: judgement.reason,
        ...(judgement.ref ? { ref: judgement.ref } : {}),
        bestAfter: best,
      };
    });
    const summary: MetricSummary | undefined = standing
      ? {
          direction: strategy.direction,
          samples: strategy.samples,
          baseSha: standing.base.sha,
          baseMedian: standing.base.median ?? 0,
          noise: standing.noise,
          best: standing.best,
          bestSha: standing.bestSha,
          kept: standing.kept,
          ...(strategy.target === undefined ? {} : { target: strategy.target }),
        }
      : undefined;
    return { kind, metric: { ...metric, ...(summary ? { summary } : {}), attempts } };
  }
  return { kind };
}
