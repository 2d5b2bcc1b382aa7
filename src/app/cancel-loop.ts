/**
 * Cancelling: a running controller is asked to stop (it kills the turn, commits its work, stops with
 * `user_cancelled`); a loop no controller runs is stopped here, the same way.
 */

import type { Actor, LoopEvent } from "../core/events.ts";
import { LoopBusyError, UsageError } from "../errors.ts";
import { runLoop } from "../loop/runner.ts";
import type { LoopState } from "../loop/state.ts";
import type { LoopRecord } from "../store/store.ts";
import { type AppContext, readLoop } from "./app-context.ts";
import type { ActionResult } from "./schemas/action-schemas.ts";

/**
 * Files `cancel_requested {by}`. With no live controller (interrupted, paused, parked or queued), runs the
 * loop's recovery and stop here and returns once it is stopped; `onEvent` sees those events. Throws
 * `LoopNotFoundError`, or `UsageError` for a loop already stopped (and not queued to resume).
 */
export async function cancelLoop(
  context: AppContext,
  reference: string,
  by: Actor,
  options: { onEvent?: (event: LoopEvent, state: LoopState) => void } = {},
): Promise<ActionResult> {
  const { loop, state } = await readLoop(context, reference);
  // A stopped loop queued to resume is still cancellable: that takes it out of the queue.
  if (state.status === "stopped" && !state.queued)
    throw new UsageError(`loop ${loop.name} is already stopped (${state.stopReason})`);
  if (await context.store.lockHolder(loop.id)) return fileCancel(context, loop, by);
  try {
    await runLoop({
      store: context.store,
      loop,
      home: context.home,
      command: "resume",
      cancel: true,
      actor: by,
      onEvent: options.onEvent,
    });
  } catch (error) {
    // A service started the loop in the meantime: ask its controller instead.
    if (error instanceof LoopBusyError) return fileCancel(context, loop, by);
    throw error;
  }
  return {
    loopId: loop.id,
    name: loop.name,
    outcome: "cancelled",
    message: `${loop.name} cancelled: stopped with user_cancelled`,
    queuePosition: null,
  };
}

async function fileCancel(context: AppContext, loop: LoopRecord, by: Actor): Promise<ActionResult> {
  await context.store.appendEvent(loop.id, "cancel_requested", { by });
  return {
    loopId: loop.id,
    name: loop.name,
    outcome: "cancel_requested",
    message: `cancel filed for ${loop.name}: the running turn is being stopped`,
    queuePosition: null,
  };
}
