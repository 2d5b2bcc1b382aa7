/**
 * `decide(state)` names the one next step of a loop. Pure: it reads the replayed state and returns an
 * action; the runner performs it, appends the resulting events, replays, and asks again. Guardrails
 * are checked here and nowhere else, in the precedence: circuit_broken > no_progress >
 * budget_exhausted.
 */
import { createHash } from "node:crypto";
import type { GatePhase, IterationOutcome, RecordedTamperFlag, StopReason } from "../core/events.ts";
import { isDeterministic, verifierGateId } from "../core/gate-facts.ts";
import { type GateAssessment, isAcceptable, passesPolicy } from "../core/gate-status.ts";
import type { GateSpec } from "../core/spec.ts";
import { deriveOverall } from "../verify/derive-overall.ts";
import { ciPassedNote, ciRepairDue, nextCiStep } from "./ci-rounds.ts";
import { nextCommentStep } from "./comment-rounds.ts";
import { assessGate } from "./gate-assessment.ts";
import { nextReviewStep } from "./review-rounds.ts";
import {
  allGateResults,
  countedIterations,
  currentIteration,
  type IterationState,
  type LoopState,
  phaseResults,
} from "./state.ts";
import { strategyOf } from "./strategies/strategy.ts";
import { blockingFlags, describeBlockingFlags, runFlags } from "./tamper-floor.ts";

export type Action =
  | { kind: "prepare" }
  | { kind: "apply_steering" }
  | { kind: "start_iteration"; iteration: number }
  | { kind: "run_maker"; iteration: number; resume: boolean; reviewRound?: number }
  | { kind: "run_review"; iteration: number; round: number }
  | { kind: "commit"; iteration: number }
  | { kind: "screen"; iteration: number }
  | { kind: "run_gates"; iteration: number; phase: GatePhase; gateIds: string[] }
  | { kind: "run_verifier"; iteration: number }
  | { kind: "record_flags"; iteration: number; flags: RecordedTamperFlag[] }
  | {
      kind: "end_iteration";
      iteration: number;
      outcome: IterationOutcome;
      failingGates: string[];
      fingerprint?: string;
      repeat: boolean;
      summary: string;
    }
  | { kind: "replan"; afterIteration: number }
  | { kind: "measure_metric"; iteration: number; phase: "base" | "attempt" | "remeasure" }
  | { kind: "judge_attempt"; iteration: number; kept: boolean }
  | { kind: "read_tasks" }
  | { kind: "complete_task"; iteration: number; taskId: string }
  | { kind: "block_task"; iteration: number; taskId: string; attempts: number; reason: string }
  | { kind: "finish" }
  | { kind: "open_pull_request" }
  | {
      kind: "answer_comment";
      id: string;
      outcome: "changed" | "unchanged" | "failed" | "limit";
      sha?: string;
      reason?: string;
    }
  | { kind: "watch_ci"; sha: string; round: number }
  | { kind: "start_ci_repair"; sha: string }
  | { kind: "pause" }
  | { kind: "park"; until: string; spentTodayUsd: number }
  | { kind: "wait"; until: string }
  | { kind: "unpark" }
  | { kind: "stop"; reason: StopReason; message: string }
  | { kind: "idle"; status: "paused" | "stopped" };

/** Consecutive infrastructure errors that break the circuit. */
export const circuitBreakerThreshold = 3;

/** Stops that leave a strategy's result worth finishing (a metric loop's best kept commit). */
const finishingStops: readonly StopReason[] = ["target_reached", "plateau", "budget_exhausted"];

/** `now` (ms since the epoch) only matters for the daily cost cap; the rest of the decision ignores time. */
export function decide(state: LoopState, now: number = Date.now()): Action {
  const action = decideNext(state, now);
  const finishFirst =
    action.kind === "stop" &&
    finishingStops.includes(action.reason) &&
    !state.finished &&
    strategyOf(state.spec).finishesOnStop(state);
  return finishFirst ? { kind: "finish" } : action;
}

function decideNext(state: LoopState, now: number): Action {
  if (state.status === "stopped" || state.status === "paused") return { kind: "idle", status: state.status };
  if (state.status === "parked") {
    if (state.cancelRequested)
      return { kind: "stop", reason: "user_cancelled", message: "cancelled by the user while parked" };
    const until = state.parkedUntil ?? new Date(now).toISOString();
    return now >= Date.parse(until) ? { kind: "unpark" } : { kind: "wait", until };
  }
  if (!state.prepared) return { kind: "prepare" };
  const iteration = currentIteration(state);
  if (iteration) return decideWithin(state, iteration);
  return decideBetween(state, now);
}

/** Inside an iteration: the next unfinished step of brief → maker → commit → screen → gates → verifier → confirm. */
function decideWithin(state: LoopState, iteration: IterationState): Action {
  const number = iteration.number;
  const maker = iteration.maker;
  if (!maker || maker.status === "interrupted") {
    if (state.cancelRequested)
      return endIteration(state, iteration, "cancelled", "cancelled before the maker ran");
    const reviewRound = iteration.reworkRound;
    return {
      kind: "run_maker",
      iteration: number,
      resume: maker?.status === "interrupted",
      ...(reviewRound !== undefined ? { reviewRound } : {}),
    };
  }
  if (!iteration.commit) return { kind: "commit", iteration: number };
  if (maker.status === "cancelled" || state.cancelRequested) {
    return endIteration(
      state,
      iteration,
      "cancelled",
      "cancelled by the user; the maker's work is committed",
    );
  }
  if (maker.status === "over_budget") {
    const cap = state.spec.budget.maxCostUsdPerIteration;
    return endIteration(
      state,
      iteration,
      "over_budget",
      `the iteration's $${cap} cost cap ran out in the maker's turn`,
    );
  }
  if (maker.status === "crashed") {
    return endIteration(
      state,
      iteration,
      "infra_error",
      `maker crashed: ${maker.error ?? "no reason given"}`,
    );
  }
  const review = nextReviewStep(state, iteration);
  if (review?.kind === "end") return endIteration(state, iteration, review.outcome, review.summary);
  if (review) return review;
  if (!iteration.screen) return { kind: "screen", iteration: number };

  const strategy = strategyOf(state.spec);
  const gates = state.spec.gates.filter(isDeterministic).map(strategy.gradedGate);
  const ungraded = gates.filter((gate) => !phaseResults(iteration, "grade")[gate.id]).map((gate) => gate.id);
  if (ungraded.length > 0) return { kind: "run_gates", iteration: number, phase: "grade", gateIds: ungraded };
  const newRunFlags = runFlags(state, iteration).filter(
    (flag) => !iteration.tamperFlags.some((recorded) => recorded.id === flag.id),
  );
  if (newRunFlags.length > 0) return { kind: "record_flags", iteration: number, flags: newRunFlags };
  // Only required gates are rechecked and confirmed: informative ones are reported as graded.
  const required = gates.filter((gate) => gate.required);
  const graded = required.map((gate) => ({
    gate,
    assessment: assessGate(gate, iteration, state.baseline[gate.id], { confirm: false }),
  }));
  const recheck = graded.filter((entry) => entry.assessment.due === "recheck").map((entry) => entry.gate.id);
  if (recheck.length > 0) return { kind: "run_gates", iteration: number, phase: "recheck", gateIds: recheck };

  if (iteration.screen.scopeViolations.length > 0) {
    const files = iteration.screen.scopeViolations.map((violation) => violation.file).join(", ");
    return endIteration(state, iteration, "failed", `change outside the loop's scope: ${files}`);
  }
  const blocked = graded.filter((entry) => !isAcceptable(entry.gate, entry.assessment));
  // The floor: a blocking tamper flag fails the iteration whatever a verifier would rule.
  const tampered = blockingFlags(state.spec, iteration);
  if (blocked.length > 0 || tampered.length > 0) {
    const reasons = [describeBlocked(blocked), tampered.length > 0 ? describeBlockingFlags(tampered) : ""];
    return endIteration(state, iteration, "failed", reasons.filter(Boolean).join("; "));
  }

  const verifier = iteration.verifier;
  if (!verifier || verifier.status === "interrupted") return { kind: "run_verifier", iteration: number };
  if (verifier.status === "over_budget") {
    const cap = state.spec.budget.maxCostUsdPerIteration;
    return endIteration(
      state,
      iteration,
      "over_budget",
      `the iteration's $${cap} cost cap ran out in the verifier's turn`,
    );
  }
  if (verifier.status !== "ruled" || !verifier.verdict) {
    return endIteration(
      state,
      iteration,
      "infra_error",
      `verifier ${verifier.status}: ${verifier.error ?? ""}`.trim(),
    );
  }
  // loopwright derives the outcome from the rulings; an `overall` that disagrees is recorded, not invalid.
  const ruled = deriveOverall(verifier.verdict, state.spec.gates);
  if (ruled.overall !== "pass") {
    const why = ruled.disagreement
      ? `the verifier did not approve (${ruled.disagreement})`
      : "the verifier did not approve";
    return endIteration(state, iteration, "failed", why);
  }

  const own = strategy.afterApproval(state, iteration);
  if (own?.kind === "end") return endIteration(state, iteration, own.outcome, own.summary);
  if (own) return own;
  const confirmed = required.map((gate) => ({
    gate,
    assessment: assessGate(gate, iteration, state.baseline[gate.id], { confirm: true }),
  }));
  const nextRound = confirmed.map((entry) => entry.assessment.due).find((due) => due !== undefined);
  if (nextRound) {
    const due = confirmed.filter((entry) => entry.assessment.due === nextRound).map((entry) => entry.gate.id);
    return { kind: "run_gates", iteration: number, phase: nextRound, gateIds: due };
  }
  const flipped = confirmed.filter((entry) => !isAcceptable(entry.gate, entry.assessment));
  if (flipped.length > 0) return endIteration(state, iteration, "failed", describeBlocked(flipped));
  const flaky = confirmed
    .filter((entry) => entry.assessment.status === "flaky")
    .map((entry) => entry.gate.id);
  const summary =
    flaky.length > 0
      ? `the verifier approved and every gate passed, but flaky: ${flaky.join(", ")} passed and failed on the same commit (reported, not blocking)`
      : "every gate passed, again on a re-run, and the verifier approved";
  return endIteration(state, iteration, "verified", `${summary}${ruledLegitimate(iteration)}`);
}

/** Between iterations: finish, stop on a guardrail, replan, pause, steer, or start the next iteration. */
function decideBetween(state: LoopState, now: number): Action {
  // A `/loopwright` review request on the pull request reopened the loop: its round comes first.
  const commentStep = nextCommentStep(state);
  if (commentStep) return commentStep;
  const last = state.iterations.at(-1);
  const strategy = strategyOf(state.spec);
  const own = last?.ended ? strategy.afterIteration(state, last) : undefined;
  if (own && own !== "continue") return own;
  // finish.ci: a failed check asked for a repair of the verified commit; it is the next iteration.
  if (last?.ended?.outcome === "verified" && ciRepairDue(state, last) && !state.cancelRequested)
    return { kind: "start_iteration", iteration: last.number + 1 };
  if (last?.ended?.outcome === "verified" && own !== "continue" && !ciRepairDue(state, last)) {
    if (!state.finished) return { kind: "finish" };
    if (state.spec.finish.action === "pull-request" && state.finished.pushed && !state.pullRequest)
      return { kind: "open_pull_request" };
    const ci = nextCiStep(state);
    if (ci) return ci;
    const pull = state.pullRequest;
    const opened = !pull
      ? state.finished.unchanged
        ? "; the tree is unchanged, no pull request"
        : state.finished.error
          ? `; not pushed: ${state.finished.error}`
          : ""
      : pull.error
        ? `; no pull request: ${pull.error}`
        : `; pull request ${pull.created ? "opened" : "updated"}: ${pull.url}`;
    return {
      kind: "stop",
      reason: "verified",
      message: `${strategy.verifiedMessage(state, last)}${opened}${ciPassedNote(state)}`,
    };
  }
  if (state.cancelRequested)
    return { kind: "stop", reason: "user_cancelled", message: "cancelled by the user" };
  // Steering first: a raised budget or a new goal is what the guardrails must judge.
  if (state.pendingSteers.length > 0) return { kind: "apply_steering" };
  // The base commit's results, before the first iteration (and for a gate added later by steering).
  const unbaselined = state.spec.gates.filter((gate) => isDeterministic(gate) && !state.baseline[gate.id]);
  if (unbaselined.length > 0) {
    return {
      kind: "run_gates",
      iteration: 0,
      phase: "baseline",
      gateIds: unbaselined.map((gate) => gate.id),
    };
  }
  if (state.consecutiveInfraErrors >= circuitBreakerThreshold) {
    return {
      kind: "stop",
      reason: "circuit_broken",
      message: `${state.consecutiveInfraErrors} infrastructure errors in a row; last: ${last?.ended?.summary ?? ""}`,
    };
  }
  if (state.repeatsSinceSteer >= 2) {
    return {
      kind: "stop",
      reason: "no_progress",
      message: "the same change and failures came back after a replan",
    };
  }
  if (last?.ended?.outcome === "over_budget" && state.resumedAfterIteration < last.number) {
    return { kind: "stop", reason: "budget_exhausted", message: last.ended.summary };
  }
  const maxIterations = state.spec.budget.maxIterations;
  if (maxIterations > 0 && countedIterations(state) >= maxIterations) {
    return { kind: "stop", reason: "budget_exhausted", message: `iteration budget spent (${maxIterations})` };
  }
  // A repeat from before a change of goal or gates (repeatsSinceSteer reset) needs no replan.
  const replanDue = last?.ended?.repeat && state.repeatsSinceSteer > 0;
  if (replanDue && !state.replans.some((replan) => replan.afterIteration === last.number)) {
    return { kind: "replan", afterIteration: last.number };
  }
  if (state.pauseRequested) return { kind: "pause" };
  const dailyCap = state.spec.budget.maxCostUsdPerDay;
  const spentToday = state.costByDay[new Date(now).toISOString().slice(0, 10)] ?? 0;
  if (dailyCap > 0 && spentToday >= dailyCap)
    return { kind: "park", until: nextUtcMidnight(now), spentTodayUsd: spentToday };
  return (
    strategy.beforeIteration(state) ?? {
      kind: "start_iteration",
      iteration: (last?.number ?? 0) + 1,
    }
  );
}

/** `; 2 tamper flags ruled legitimate by the verifier: T1, T2` when the verifier waved flags through. */
function ruledLegitimate(iteration: IterationState): string {
  const legitimate = (iteration.verifier?.verdict?.tamper ?? []).filter((ruling) => ruling.legitimate);
  if (legitimate.length === 0) return "";
  const count = legitimate.length === 1 ? "1 tamper flag" : `${legitimate.length} tamper flags`;
  return `; ${count} ruled legitimate by the verifier: ${legitimate.map((ruling) => ruling.id).join(", ")}`;
}

function describeBlocked(blocked: { gate: GateSpec; assessment: GateAssessment }[]): string {
  const flaky = blocked.filter((entry) => entry.assessment.status === "flaky").map((entry) => entry.gate.id);
  const failed = blocked.filter((entry) => entry.assessment.status !== "flaky").map((entry) => entry.gate.id);
  return [
    failed.length > 0 ? `gates failed: ${failed.join(", ")}` : "",
    flaky.length > 0 ? `flaky: ${flaky.join(", ")} passed and failed on the same commit` : "",
  ]
    .filter(Boolean)
    .join("; ");
}

function endIteration(
  state: LoopState,
  iteration: IterationState,
  outcome: IterationOutcome,
  summary: string,
): Action {
  const failingGates = failingGateIds(state, iteration);
  const fingerprint =
    outcome === "failed" && iteration.screen
      ? fingerprintOf(iteration.screen.diffHash, failingGates)
      : undefined;
  const repeat = fingerprint !== undefined && state.fingerprintsSinceSteer.includes(fingerprint);
  return {
    kind: "end_iteration",
    iteration: iteration.number,
    outcome,
    failingGates,
    fingerprint,
    repeat,
    summary,
  };
}

/** The failing "gate" that stands for blocking tamper flags in `failingGates` and fingerprints. */
export const tamperGateId = "tamper";

/** The ids of every gate that is red in any run of the iteration (under its baseline policy), plus scope, tamper and verifier. */
export function failingGateIds(state: LoopState, iteration: IterationState): string[] {
  const failing = new Set<string>();
  for (const result of allGateResults(iteration)) {
    const gate = state.spec.gates.find((candidate) => candidate.id === result.id);
    if (gate && !passesPolicy(gate, result, state.baseline[gate.id])) failing.add(result.id);
  }
  if (iteration.screen && iteration.screen.scopeViolations.length > 0) failing.add("scope");
  if (blockingFlags(state.spec, iteration).length > 0) failing.add(tamperGateId);
  const verdict = iteration.verifier?.verdict;
  if (verdict && deriveOverall(verdict, state.spec.gates).overall !== "pass") {
    failing.add(verifierGateId);
    for (const ruling of verdict.gates) if (!ruling.passed) failing.add(ruling.id);
  }
  const builtIn = ["scope", tamperGateId, verifierGateId];
  return [...failing].filter((id) => builtIn.includes(id) || hasGate(state, id)).sort();
}

function hasGate(state: LoopState, id: string): boolean {
  return state.spec.gates.some((gate) => gate.id === id);
}

/** The no-progress fingerprint: the normalized diff's hash plus the sorted set of failing gates. */
export function fingerprintOf(diffHash: string, failingGates: string[]): string {
  return createHash("sha256")
    .update(`${diffHash}\n${[...failingGates].sort().join(",")}`)
    .digest("hex")
    .slice(0, 16);
}

/** The next UTC midnight after `now`, as an ISO time. */
export function nextUtcMidnight(now: number): string {
  const date = new Date(now);
  return new Date(Date.UTC(date.getUTCFullYear(), date.getUTCMonth(), date.getUTCDate() + 1)).toISOString();
}
