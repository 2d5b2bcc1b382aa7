/** Pausing: the current iteration finishes, then the loop waits until it is resumed. */

import type { Actor } from "../core/events.ts";
import { UsageError } from "../errors.ts";
import { type AppContext, readLoop } from "./app-context.ts";
import type { ActionResult } from "./schemas/action-schemas.ts";

/**
 * Files `pause_requested {by}`. Throws `LoopNotFoundError`, or `UsageError` for a loop already stopped
 * or paused (nothing is filed).
 */
export async function pauseLoop(context: AppContext, reference: string, by: Actor): Promise<ActionResult> {
  const { loop, state } = await readLoop(context, reference);
  if (state.status === "stopped") throw new UsageError(`loop ${loop.name} is stopped (${state.stopReason})`);
  if (state.status === "paused") throw new UsageError(`loop ${loop.name} is already paused`);
  await context.store.appendEvent(loop.id, "pause_requested", { by });
  return {
    loopId: loop.id,
    name: loop.name,
    outcome: "pause_requested",
    message: `pause filed for ${loop.name}: the current iteration finishes, then the loop waits`,
    queuePosition: null,
  };
}
