/** The exact brief a maker was sent, as it was sent (redacted before it was recorded). */
import { FieldError, UsageError } from "../errors.ts";
import { type AppContext, readLoop } from "./app-context.ts";
import { iterationOrThrow } from "./iterations.ts";
import { parseRequest } from "./parse-request.ts";
import { type Brief, type BriefRequest, briefRequestSchema } from "./schemas/file-schemas.ts";

/**
 * The brief of `iteration` (default: the latest). Throws `LoopNotFoundError`, or `FieldError` on
 * `iteration` for 0 (the base commit's gate run has no brief) or a number the loop does not have;
 * `UsageError` for a loop that has not started an iteration.
 */
export async function getBrief(
  context: AppContext,
  reference: string,
  request: BriefRequest = {},
): Promise<Brief> {
  const { iteration: wanted } = parseRequest(briefRequestSchema, request);
  const { loop, state } = await readLoop(context, reference);
  if (wanted === 0) {
    const message = `iteration 0 is the gates' run on the base commit: it has no brief (loopwright logs ${loop.name} --iteration 0 prints its logs)`;
    throw new FieldError("iteration", message, message);
  }
  const iteration =
    wanted === undefined ? state.iterations.at(-1) : iterationOrThrow(state, wanted, loop.name);
  if (!iteration) throw new UsageError(`loop ${loop.name} has not started an iteration yet`);
  return { loopId: loop.id, iteration: iteration.number, brief: iteration.brief };
}
