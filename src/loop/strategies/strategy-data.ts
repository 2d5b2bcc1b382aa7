/** A loop's strategy and what it found, as data for `report --json`, the API and the dashboard. Pure. */
import type { LoopState } from "../state.ts";
import type { MetricState } from "./metric-state.ts";
import { type StreakStatistics, streakStatistics } from "./streak-statistics.ts";
import type { TaskRecord } from "./task-state.ts";

export interface StrategyData {
  kind: string;
  /** streak: runs, failure counts and rates per test, the final streak and its 95% bound. */
  streak?: StreakStatistics;
  /** tasks: every task and where it stands. */
  tasks?: TaskRecord[];
  /** metric: every measurement and every attempt's judgement (the results table). */
  metric?: MetricState;
}

export function strategyData(state: LoopState): StrategyData {
  const kind = state.spec.strategy.kind;
  if (kind === "streak") return { kind, streak: streakStatistics(state) };
  if (kind === "tasks") return { kind, tasks: state.tasks?.tasks ?? [] };
  if (kind === "metric") return { kind, metric: state.metric ?? { measurements: [], judgements: [] } };
  return { kind };
}
