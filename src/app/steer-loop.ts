/**
 * Steering: a change of goal, gates or budget filed on the loop's timeline with who filed it, applied at
 * the next iteration boundary (or when the loop resumes).
 */

import type { Actor } from "../core/events.ts";
import { FieldError, UsageError } from "../errors.ts";
import { countedIterations, type LoopState } from "../loop/state.ts";
import { applySteering, validateSteerRequest } from "../loop/steering.ts";
import { type AppContext, readLoop } from "./app-context.ts";
import { parseRequest } from "./parse-request.ts";
import { type SteerRequestBody, type SteerResult, steerRequestSchema } from "./schemas/action-schemas.ts";

/**
 * Validates the request against the spec it will apply to (pending steering included) and files it as
 * `steer_requested {request, by}`. Throws `LoopNotFoundError`, `FieldError` naming the wrong field
 * (nothing is filed), or `UsageError` for a verified loop, which never applies steering.
 */
export async function steerLoop(
  context: AppContext,
  reference: string,
  body: SteerRequestBody,
  by: Actor,
): Promise<SteerResult> {
  const input = parseRequest(steerRequestSchema, body);
  if (Object.values(input).every((value) => value === undefined))
    throw new FieldError("body", "nothing to change: give goal, addGates, removeGates or budget");
  const { loop, state } = await readLoop(context, reference);
  if (state.status === "stopped" && state.stopReason === "verified") {
    throw new UsageError(
      `loop ${loop.name} is verified and finished: steering would never apply; start a new loop for a new goal (loopwright run)`,
    );
  }
  const pendingSpec = applySteering(state.spec, state.pendingSteers).spec;
  const request = validateSteerRequest(pendingSpec, input);
  await context.store.appendEvent(loop.id, "steer_requested", { request, by });
  const running = (await context.store.lockHolder(loop.id)) !== undefined;
  const maxIterations = applySteering(pendingSpec, [request]).spec.budget.maxIterations;
  return {
    loopId: loop.id,
    name: loop.name,
    request: request as Record<string, unknown>,
    appliesAt: running ? "next_iteration" : "resume",
    message: describeFiled(loop.name, state, running),
    warning: budgetSpentAfter(state, maxIterations) ?? null,
  };
}

/** What the owner is told when a steer is filed: when it will apply. */
function describeFiled(name: string, state: LoopState, running: boolean): string {
  if (running) return `steering filed for ${name}: applied at the next iteration boundary`;
  const stopped = state.status === "stopped" ? ` (stopped: ${state.stopReason})` : "";
  return `steering filed for ${name}${stopped}: applied when it resumes (loopwright resume ${name})`;
}

/** A stopped loop whose iteration budget stays spent stops again right after applying the steer: say so. */
function budgetSpentAfter(state: LoopState, maxIterations: number): string | undefined {
  if (state.status !== "stopped" || maxIterations === 0) return undefined;
  const counted = countedIterations(state);
  if (counted < maxIterations) return undefined;
  return `the iteration budget is spent (${counted} of ${maxIterations}): the loop stops again right after applying this; raise it with --budget maxIterations=${counted + 1}`;
}
