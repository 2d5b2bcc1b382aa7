/** Said about steering after a loop ends; apart from steering.ts so that reading a loop (`show`) loads no schema library. */
import type { LoopState } from "./state.ts";

/**
 * Steering that will never apply, said so rather than dropped: requests filed during the iteration that
 * made the loop verified (a verified loop does not resume). Undefined when there are none.
 */
export function describeUnappliedSteering(state: LoopState): string | undefined {
  const count = state.pendingSteers.length;
  if (count === 0 || state.stopReason !== "verified") return undefined;
  const requests = count === 1 ? "1 steering request was" : `${count} steering requests were`;
  return `${requests} not applied: the loop was verified before the next iteration boundary; start a new loop for a new goal`;
}
