/**
 * `strategy: streak`, the flaky-test stabilizer, as a policy. The suite runs on the base commit until
 * it fails (or passes `passes` times in a row: the suite is stable, nothing changes). After a red run,
 * only its failing tests run again (the recheck, narrowed by `rerunFailed`), and the maker gets that
 * failure's digest. In an iteration, the suite must pass `passes` times in a row on the maker's commit:
 * the graded run plus `passes - 1` confirmation runs, any red one failing the iteration. `maxRuns` bounds
 * the full runs of the whole loop. Pure.
 */
import { confirmPhase } from "../../core/events.ts";
import { isDeterministic } from "../../core/gate-facts.ts";
import type { StreakStrategy } from "../../core/strategy-spec.ts";
import type { Action } from "../decide.ts";
import type { IterationState, LoopState } from "../state.ts";
import { type EndIteration, type StrategyPolicy, untilVerified } from "./strategy.ts";
import { streakBrief } from "./streak-brief.ts";
import { streakReport } from "./streak-report.ts";
import { streakStatistics } from "./streak-statistics.ts";
import { type SuiteRun, suiteRuns } from "./suite-runs.ts";

export function streakPolicy(streak: StreakStrategy): StrategyPolicy {
  return {
    ...untilVerified,
    gradedGate: (gate) => (isDeterministic(gate) ? { ...gate, rerun: streak.passes - 1 } : gate),
    afterApproval: (state, iteration) => afterApproval(streak, state, iteration),
    beforeIteration: (state) => beforeIteration(streak, state),
    briefSection: (state, inputs) => streakBrief(state, streak, inputs.digests),
    verifiedMessage: (state, iteration) => {
      const stats = streakStatistics(state);
      return `${stats.finalStreak} consecutive full-suite passes on ${iteration.commit?.sha.slice(0, 10)} at iteration ${iteration.number} (${stats.fullRuns} full runs, ${stats.failedRuns} red)`;
    },
    reportSection: (state) => streakReport(state, streak.passes),
  };
}

function afterApproval(
  streak: StreakStrategy,
  state: LoopState,
  iteration: IterationState,
): Action | EndIteration | undefined {
  const runs = completeRuns(state);
  const own = runs.filter((run) => run.iteration === iteration.number);
  const last = own.at(-1);
  if (!last) return undefined;
  if (!last.passed) return recheckOf(last, iteration.gates.recheck ?? {}, iteration.number);
  // A commit seen failing (the maker changed nothing since) is flaky whatever streak it runs now.
  const failedBefore = runs.find((run) => run.sha === last.sha && !run.passed);
  if (failedBefore) {
    const where =
      failedBefore.iteration === 0 ? "on the base commit" : `in iteration ${failedBefore.iteration}`;
    return {
      kind: "end",
      outcome: "failed",
      summary: `commit ${last.sha.slice(0, 10)} already failed a full run (${where}): passes on it prove nothing, the flake needs a change`,
    };
  }
  if (own.length < streak.passes && runs.length >= streak.maxRuns) {
    return {
      kind: "end",
      outcome: "over_budget",
      summary: `the streak's ${streak.maxRuns} full runs are spent: ${own.length} of ${streak.passes} consecutive passes on this commit`,
    };
  }
  return undefined;
}

function beforeIteration(streak: StreakStrategy, state: LoopState): Action | undefined {
  const runs = completeRuns(state);
  if (runs.length >= streak.maxRuns) {
    return {
      kind: "stop",
      reason: "budget_exhausted",
      message: `${runs.length} full runs of the suite (maxRuns ${streak.maxRuns}) without ${streak.passes} consecutive passes on one commit`,
    };
  }
  if (state.iterations.length > 0) return undefined;
  // Before any change: run the suite on the base commit until it fails, or proves stable.
  const base = runs.filter((run) => run.iteration === 0);
  const last = base.at(-1);
  if (!last) return undefined;
  if (!last.passed) return recheckOf(last, state.baseRuns.gates.recheck ?? {}, 0);
  if (base.length >= streak.passes) {
    return {
      kind: "stop",
      reason: "verified",
      message: `the suite was stable: ${base.length} of ${base.length} full runs passed on the base commit and none failed; nothing was changed`,
    };
  }
  const suite = state.spec.gates
    .filter((gate) => gate.required && isDeterministic(gate))
    .map((gate) => gate.id);
  return { kind: "run_gates", iteration: 0, phase: confirmPhase(base.length), gateIds: suite };
}

/** The recheck of a red run's failing gates that have none yet, or `undefined` when every one has. */
function recheckOf(run: SuiteRun, rechecked: Record<string, unknown>, iteration: number): Action | undefined {
  const due = Object.keys(run.failures).filter((gateId) => !rechecked[gateId]);
  return due.length > 0 ? { kind: "run_gates", iteration, phase: "recheck", gateIds: due } : undefined;
}

function completeRuns(state: LoopState): SuiteRun[] {
  return suiteRuns(state).filter((run) => run.complete);
}
