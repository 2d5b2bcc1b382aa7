/**
 * The process exit code of a loop's final state: one per stop reason, 75 for a paused loop, and 9 for a
 * `verified` loop whose `finish: pull-request` failed to push or to open its pull request.
 */
import { ExitCode } from "../errors.ts";
import type { LoopState } from "./state.ts";

export function exitCodeOf(state: LoopState): number {
  if (state.status === "paused") return ExitCode.paused;
  switch (state.stopReason) {
    case "verified":
      return unpublished(state) ? ExitCode.unpublished : ExitCode.verified;
    case "budget_exhausted":
      return ExitCode.budget_exhausted;
    case "no_progress":
      return ExitCode.no_progress;
    case "circuit_broken":
      return ExitCode.circuit_broken;
    case "target_reached":
      return ExitCode.target_reached;
    case "plateau":
      return ExitCode.plateau;
    case "ci_failed":
      return ExitCode.ci_failed;
    case "user_cancelled":
      return ExitCode.user_cancelled;
    default:
      return ExitCode.internal;
  }
}

/** The work is verified but the pull request it should end in is missing: a failed push or PR step. */
export function unpublished(state: LoopState): boolean {
  if (state.spec.finish.action !== "pull-request" || !state.finished) return false;
  return state.finished.error !== undefined || state.pullRequest?.error !== undefined;
}
