/**
 * Resuming: through a service the loop is queued (`loop_queued {by, command: "resume"}`) and the service
 * starts it under its caps; in a terminal the CLI records who resumed it and runs it in the foreground.
 */

import type { Actor } from "../core/events.ts";
import { LoopBusyError, UsageError } from "../errors.ts";
import { unpublished } from "../loop/exit-code.ts";
import type { LoopState } from "../loop/state.ts";
import { describeVerified } from "../loop/tamper-standing.ts";
import type { LoopRecord } from "../store/store.ts";
import { type AppContext, readLoop } from "./app-context.ts";
import { listLoops } from "./list-loops.ts";
import type { ActionResult } from "./schemas/action-schemas.ts";

/**
 * Queues the loop for a running service to resume. Throws `LoopNotFoundError`, `LoopBusyError` for a loop
 * a live controller runs, or `UsageError` for a loop already queued or verified (nothing is filed).
 */
export async function resumeLoop(context: AppContext, reference: string, by: Actor): Promise<ActionResult> {
  const { loop, state } = await readLoop(context, reference);
  const holder = await context.store.lockHolder(loop.id);
  if (holder)
    throw new LoopBusyError(`loop ${loop.name} is already running (pid ${holder.pid} on ${holder.host})`);
  refuseVerified(loop, state);
  if (state.queued) throw new UsageError(`loop ${loop.name} is already queued (since ${state.queued.at})`);
  await context.store.appendEvent(loop.id, "loop_queued", { by, command: "resume" });
  const position = (await listLoops(context)).loops.find((row) => row.id === loop.id)?.queuePosition ?? null;
  return {
    loopId: loop.id,
    name: loop.name,
    outcome: "queued",
    message: `${loop.name} queued to resume${position ? ` (position ${position})` : ""}: the service starts it`,
    queuePosition: position,
  };
}

/**
 * Records `resume_requested {by}` before the caller runs the loop in the foreground (`runLoop` with
 * `command: "resume"`), and returns the loop. A verified loop gets nothing recorded: there is nothing to
 * resume, and running it only tidies up. Throws `LoopNotFoundError`.
 */
export async function recordForegroundResume(
  context: AppContext,
  reference: string,
  by: Actor,
): Promise<LoopRecord> {
  const { loop, state } = await readLoop(context, reference);
  if (!isDone(state)) await context.store.appendEvent(loop.id, "resume_requested", { by });
  return loop;
}

/** A verified loop is done, unless its pull request could not be published (resume finishes it again). */
function isDone(state: LoopState): boolean {
  return state.status === "stopped" && state.stopReason === "verified" && !unpublished(state);
}

function refuseVerified(loop: LoopRecord, state: LoopState): void {
  if (isDone(state))
    throw new UsageError(`loop ${loop.name} is ${describeVerified(state)}: nothing to resume`);
}
