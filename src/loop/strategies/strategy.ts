/**
 * A strategy is the shape of a loop as a pure policy over the one timeline: it never runs anything and
 * keeps no state of its own. `decide` asks it at three fixed points and does the rest (guardrails,
 * steering, budgets, cancellation, the maker, the screen, the verifier) the same way for every strategy,
 * which is why resume after kill -9, steering, the report and the dashboard work for all of them.
 */
import type { IterationOutcome } from "../../core/events.ts";
import type { GateSpec, Spec } from "../../core/spec.ts";
import type { BriefInputs } from "../brief.ts";
import type { Action } from "../decide.ts";
import type { IterationState, LoopState } from "../state.ts";
import { metricPolicy } from "./metric.ts";
import { streakPolicy } from "./streak.ts";
import { tasksPolicy } from "./tasks.ts";

/** Ends the iteration in progress with this outcome (decide computes the failing gates and fingerprint). */
export interface EndIteration {
  kind: "end";
  outcome: IterationOutcome;
  summary: string;
}

export interface StrategyPolicy {
  /** The gate as this strategy grades it inside an iteration (a streak sets the confirmation re-runs). */
  gradedGate(gate: GateSpec): GateSpec;
  /**
   * Inside an iteration the verifier approved, before the confirmation re-runs are scheduled or judged:
   * a step of the strategy's own, or `undefined` for the default.
   */
  afterApproval(state: LoopState, iteration: IterationState): Action | EndIteration | undefined;
  /**
   * Between iterations, after one ended: a step of the strategy's own (tasks: tick the task; metric:
   * keep or reset the attempt), `"continue"` to go on through the guardrails even after a verified
   * one, or `undefined` for the default (finish after a verified iteration, go on after another).
   */
  afterIteration(state: LoopState, iteration: IterationState): Action | "continue" | undefined;
  /**
   * Whether a stop on target_reached, plateau or budget_exhausted is preceded by the finish action
   * (metric: the best kept commit is the result). Never after `finish` has run.
   */
  finishesOnStop(state: LoopState): boolean;
  /** The commit the loop's branch ends on when it finishes. */
  finalCommit(state: LoopState): string | undefined;
  /** The message of the `verified` stop after a verified, finished iteration. */
  verifiedMessage(state: LoopState, iteration: IterationState): string;
  /**
   * Between iterations, after steering, the baseline, the guardrails, pause and the daily cap, where the
   * default would start the next iteration: a step of the strategy's own, a stop, or `undefined`.
   */
  beforeIteration(state: LoopState): Action | undefined;
  /** The strategy's section of the maker's brief (after the goal and the definition of done), if any. */
  briefSection(state: LoopState, inputs: BriefInputs): string | undefined;
  /** The strategy's section of the report (after the outcome), as Markdown lines; empty for none. */
  reportSection(state: LoopState): string[];
}

/** The last iteration's commit (the verified one, when the loop finishes after a verified iteration). */
export function lastCommit(state: LoopState): string | undefined {
  return state.iterations.at(-1)?.commit?.sha ?? state.baseSha;
}

/** The defaults every strategy starts from: the until-verified loop. */
export const untilVerified: StrategyPolicy = {
  gradedGate: (gate) => gate,
  afterApproval: () => undefined,
  afterIteration: () => undefined,
  finishesOnStop: () => false,
  finalCommit: lastCommit,
  verifiedMessage: (_state, iteration) => `verified at iteration ${iteration.number}`,
  beforeIteration: () => undefined,
  briefSection: () => undefined,
  reportSection: () => [],
};

/** The policy of a spec's strategy. */
export function strategyOf(spec: Spec): StrategyPolicy {
  const strategy = spec.strategy;
  switch (strategy.kind) {
    case "until-verified":
      return untilVerified;
    case "streak":
      return streakPolicy(strategy);
    case "tasks":
      return tasksPolicy(strategy);
    case "metric":
      return metricPolicy(strategy);
  }
}
