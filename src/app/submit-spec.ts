/**
 * Submitting a spec to the service, whatever it holds: a spec with `schedule:` registers (or replaces)
 * its schedule, which the service fires; any other spec becomes one queued loop (`submitLoop`). The face
 * of `run --detach`, and of the API's create from a spec body. Validated exactly as `run` validates.
 */
import { type Registration, registerSchedule } from "../service/schedules/register-schedule.ts";
import { readServiceFile, type ServiceInfo } from "../service/service-file.ts";
import { loadSpecSource, type SubmitLoopOptions, type SubmittedLoop, submitLoop } from "./submit-loop.ts";

export type SubmittedSpec =
  | ({ kind: "loop" } & SubmittedLoop)
  | {
      kind: "schedule";
      registration: Registration;
      /** The running service that will fire it, if there is one. */
      service?: ServiceInfo;
    };

/** Throws what `submitLoop` throws (`SpecError` with every problem; nothing created or registered then). */
export async function submitSpec(options: SubmitLoopOptions, now: Date = new Date()): Promise<SubmittedSpec> {
  const { loaded, label } = await loadSpecSource(options.source);
  if (!loaded.spec.schedule)
    return { kind: "loop", ...(await submitLoop({ ...options, source: { loaded, label } })) };
  const registration = await registerSchedule(options.context.store, loaded, label, now);
  return { kind: "schedule", registration, service: await readServiceFile(options.context.home) };
}
