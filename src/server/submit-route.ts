/** `POST /api/loops`: a spec's text submitted as `run --detach` submits a file (a loop, or a schedule). */
import { join } from "node:path";
import type { AppContext } from "../app/app-context.ts";
import { submitSpec } from "../app/submit-spec.ts";
import type { WebActor } from "./access-guard.ts";

export interface SubmitBody {
  spec: string;
  directory: string;
  label?: string;
}

/**
 * Validates the spec exactly as `run` does, then creates the loop and queues it, or, for a spec with
 * `schedule:`, registers (or replaces) its schedule. Throws `SpecError` (400 listing every problem as
 * `label:line: field: message`) or `UsageError` (a loop or branch of that name exists), and then nothing
 * is created.
 */
export async function submitFromBody(context: AppContext, body: SubmitBody, by: WebActor) {
  const label = body.label ?? "loop.yaml";
  const submitted = await submitSpec({
    context,
    source: { text: body.spec, label, directory: body.directory, specPath: join(body.directory, label) },
    by,
  });
  const service = submitted.service;
  if (submitted.kind === "schedule") {
    const { schedule, replaced, nextFiringAt, warnings } = submitted.registration;
    const verb = replaced ? "replaced" : "registered";
    const first = nextFiringAt ? `first firing ${nextFiringAt.toISOString()}` : "it never fires";
    return {
      kind: "schedule" as const,
      scheduleId: schedule.id,
      name: schedule.name,
      replaced: replaced !== undefined,
      nextFiringAt: nextFiringAt?.toISOString() ?? null,
      warnings,
      message: service
        ? `schedule ${schedule.name} ${verb}, ${first}: the service (pid ${service.pid}) fires it`
        : `schedule ${schedule.name} ${verb}, ${first}: no service runs for this home yet (loopwright serve fires it)`,
    };
  }
  const { loop, position } = submitted;
  return {
    kind: "loop" as const,
    loopId: loop.id,
    name: loop.name,
    queuePosition: position,
    warnings: submitted.warnings,
    message: service
      ? `${loop.name} queued (position ${position}): the service (pid ${service.pid}) starts it within its caps`
      : `${loop.name} queued (position ${position}): no service runs for this home yet (loopwright serve starts it)`,
  };
}
