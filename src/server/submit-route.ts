/** `POST /api/loops`: a spec's text submitted as `run --detach` submits a file. */
import { join } from "node:path";
import type { AppContext } from "../app/app-context.ts";
import { submitLoop } from "../app/submit-loop.ts";
import type { WebActor } from "./access-guard.ts";

export interface SubmitBody {
  spec: string;
  directory: string;
  label?: string;
}

/**
 * Validates the spec exactly as `run` does, creates the loop and queues it. Throws `SpecError` (400
 * listing every problem as `label:line: field: message`) or `UsageError` (a loop or branch of that name
 * exists), and then nothing is created.
 */
export async function submitFromBody(context: AppContext, body: SubmitBody, by: WebActor) {
  const label = body.label ?? "loop.yaml";
  const submitted = await submitLoop({
    context,
    source: { text: body.spec, label, directory: body.directory, specPath: join(body.directory, label) },
    by,
  });
  const { loop, position, service } = submitted;
  return {
    loopId: loop.id,
    name: loop.name,
    queuePosition: position,
    warnings: submitted.warnings,
    message: service
      ? `${loop.name} queued (position ${position}): the service (pid ${service.pid}) starts it within its caps`
      : `${loop.name} queued (position ${position}): no service runs for this home yet (loopwright serve starts it)`,
  };
}
