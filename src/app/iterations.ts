/** A loop's iterations: the list in brief, and one iteration in full. */
import { FieldError, UsageError } from "../errors.ts";
import { summarizeLoop } from "../loop/iteration-summary.ts";
import { allGateResults, type IterationState, type LoopState } from "../loop/state.ts";
import { type AppContext, readLoop } from "./app-context.ts";
import type { IterationDetail, IterationList } from "./schemas/iteration-schemas.ts";

/** Every iteration of the loop in brief, in order. Throws `LoopNotFoundError`. */
export async function listIterations(context: AppContext, reference: string): Promise<IterationList> {
  const { loop, state, events } = await readLoop(context, reference);
  return { loopId: loop.id, iterations: summarizeLoop(state, events).iterations };
}

/**
 * One iteration in full. Throws `LoopNotFoundError`, or `FieldError` on `iteration` for a number the
 * loop does not have.
 */
export async function getIteration(
  context: AppContext,
  reference: string,
  number: number,
): Promise<IterationDetail> {
  const { loop, state, events } = await readLoop(context, reference);
  const iteration = iterationOrThrow(state, number, loop.name);
  const summary = summarizeLoop(state, events).iterations.find((entry) => entry.iteration === number);
  if (!summary) throw new UsageError(`loop ${loop.name} has no iteration ${number}`);
  const screen = iteration.screen;
  return {
    loopId: loop.id,
    summary,
    brief: iteration.brief,
    startSha: iteration.startSha,
    makerAttempts: iteration.makerAttempts,
    maker: iteration.maker ?? null,
    commit: iteration.commit ?? null,
    screen: screen
      ? {
          changedFiles: screen.changedFiles,
          scopeViolations: screen.scopeViolations,
          protectedFiles: screen.protectedFiles,
          diffHash: screen.diffHash,
        }
      : null,
    gates: allGateResults(iteration),
    gatesRunning: iteration.gatesRunning,
    verifier: iteration.verifier ?? null,
    ended: iteration.ended ?? null,
  };
}

/** The iteration numbered `number`; `FieldError` on `iteration` when the loop has none such. */
export function iterationOrThrow(state: LoopState, number: number, loopName: string): IterationState {
  const iteration = state.iterations.find((candidate) => candidate.number === number);
  if (!iteration)
    throw new FieldError(
      "iteration",
      `loop ${loopName} has no iteration ${number}`,
      `loop ${loopName} has no iteration ${number}`,
    );
  return iteration;
}
