/**
 * `maxCostUsdPerIteration` is a cap on the iteration, not on each turn: the maker, the verifier, its
 * corrective retry and the replanner after it share it. Each turn's cost watchdog gets what the iteration
 * has left, read from the timeline; a turn with nothing left does not start. Pure.
 */

/** The part of a timeline event this reads (stored and in-memory events both fit). */
export interface SpendingEvent {
  type: string;
  data: Record<string, unknown> | object;
}

/** The turns whose `costUsd` counts against their iteration (`replan_ended` counts for the iteration it follows). */
const turnEnds = new Set(["maker_ended", "verifier_ended", "replan_ended", "review_ended"]);

/** Dollars the turns of `iteration` have spent so far, as recorded on the timeline. */
export function iterationSpentUsd(events: readonly SpendingEvent[], iteration: number): number {
  let spent = 0;
  for (const event of events) {
    if (!turnEnds.has(event.type)) continue;
    const data = event.data as { iteration?: unknown; costUsd?: unknown };
    if (data.iteration === iteration && typeof data.costUsd === "number" && data.costUsd > 0)
      spent += data.costUsd;
  }
  return spent;
}

/** The cost cap of the next turn: `maxCostUsd` for its watchdog (0 = none), or `exhausted` when nothing is left. */
export type TurnCap = { exhausted: false; maxCostUsd: number } | { exhausted: true; message: string };

/**
 * The next turn's cap: the iteration's cap (`capUsd`, 0 = none) minus what it already spent. `role` names
 * the turn in the message of an exhausted cap.
 */
export function nextTurnCap(capUsd: number, spentUsd: number, role: string): TurnCap {
  if (capUsd <= 0) return { exhausted: false, maxCostUsd: 0 };
  const left = capUsd - spentUsd;
  // A few hundredths of a cent are rounding, not budget.
  if (left <= 1e-6)
    return {
      exhausted: true,
      message: `the iteration's $${capUsd} cost cap was spent ($${spentUsd.toFixed(2)}) before the ${role} could start`,
    };
  return { exhausted: false, maxCostUsd: left };
}
