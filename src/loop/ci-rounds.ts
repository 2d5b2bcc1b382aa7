/**
 * `finish.ci` in `decide`: after a verified loop's pull request step, watch the forge's checks on the
 * pushed commit until they settle; a failed round starts a repair iteration while `maxRepairs` allows,
 * else the loop stops `ci_failed`, as it does when `wait` passes with no result. Pure.
 */

import { type CiRound, ciRoundOf } from "./ci-state.ts";
import type { Action } from "./decide.ts";
import type { IterationState, LoopState } from "./state.ts";

/** True when a repair was asked for after `iteration` (the verified one): the next step is the repair iteration. */
export function ciRepairDue(state: LoopState, iteration: IterationState): boolean {
  return state.ci?.repair?.afterIteration === iteration.number;
}

/** The next CI step after the pull request step, or undefined when there is none (no `ci`, or it passed). */
export function nextCiStep(state: LoopState): Action | undefined {
  const ci = state.spec.finish.ci;
  if (!ci || state.spec.finish.action !== "pull-request" || !state.finished?.pushed) return undefined;
  const sha = state.finished.sha;
  const round = ciRoundOf(state, sha);
  if (!round || round.standing === "pending") {
    if (state.cancelRequested)
      return {
        kind: "stop",
        reason: "user_cancelled",
        message: "cancelled by the user while CI was watched",
      };
    return { kind: "watch_ci", sha, round: state.ci?.repairs ?? 0 };
  }
  if (round.standing === "passed") return undefined;
  const repairs = state.ci?.repairs ?? 0;
  if (round.standing === "failed" && repairs < ci.maxRepairs) return { kind: "start_ci_repair", sha };
  return { kind: "stop", reason: "ci_failed", message: ciFailedMessage(round, repairs, ci.wait) };
}

function ciFailedMessage(round: CiRound, repairs: number, waitMs: number): string {
  const commit = round.sha.slice(0, 12);
  if (round.standing === "timed_out") {
    const seen =
      round.checks.length === 0
        ? "no check reported at all (is CI set up to run on this branch, and does the push token trigger it?)"
        : `still pending: ${round.checks
            .filter((check) => check.state === "pending")
            .map((check) => check.name)
            .join(", ")}`;
    const error = round.error ? `; the forge's last answer: ${round.error}` : "";
    return `the forge's checks on ${commit} did not finish within finish.ci.wait (${Math.round(waitMs / 1000)}s): ${seen}${error}`;
  }
  const failed = round.checks.filter((check) => check.state === "failed").map((check) => check.name);
  return `the forge's checks failed on ${commit} after ${repairs} repair ${repairs === 1 ? "round" : "rounds"}: ${failed.join(", ")}`;
}

/** `; CI passed on abc123 (3 checks)` for the verified stop message, when CI was watched. */
export function ciPassedNote(state: LoopState): string {
  const sha = state.finished?.sha;
  const round = sha ? ciRoundOf(state, sha) : undefined;
  if (round?.standing !== "passed") return "";
  const repaired = state.ci?.repairs
    ? ` after ${state.ci.repairs} repair round${state.ci.repairs === 1 ? "" : "s"}`
    : "";
  return `; CI passed on ${round.sha.slice(0, 12)} (${round.checks.length} check${round.checks.length === 1 ? "" : "s"})${repaired}`;
}
