/** The process exit code of a loop's final state: one per stop reason, 75 for a paused loop. */
import { ExitCode } from "../errors.ts";
import type { LoopState } from "./state.ts";

export function exitCodeOf(state: LoopState): number {
  if (state.status === "paused") return ExitCode.paused;
  switch (state.stopReason) {
    case "verified":
      return ExitCode.verified;
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
