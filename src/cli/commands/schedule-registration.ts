/**
 * What `run --detach` does with a spec that has `schedule:`: registers (or replaces) the schedule
 * instead of queueing one run, and says what the service will do with it.
 */
import { describeRule } from "../../core/schedule-field.ts";
import type { LoadedSpec } from "../../core/spec-file.ts";
import { ruleTimeZone, wallClock } from "../../service/schedules/firing-names.ts";
import { registerSchedule } from "../../service/schedules/register-schedule.ts";
import type { Store } from "../../store/store.ts";

/**
 * Registers `loaded`'s schedule (validated as `run` validates; `label` names the spec in problems, and a
 * `SpecError` is thrown for them) and prints what was registered or replaced and the first firing.
 * Returns the exit code (0).
 */
export async function registerScheduleCommand(
  store: Store,
  loaded: LoadedSpec,
  label: string,
): Promise<number> {
  const registration = await registerSchedule(store, loaded, label);
  const { schedule, rule, replaced } = registration;
  const what = describeRule(rule);
  const lines = replaced
    ? [
        `replaced schedule ${schedule.name} in ${schedule.repoRoot}: was ${describeReplaced(replaced.rule)}, now ${what}`,
      ]
    : [`registered schedule ${schedule.name} in ${schedule.repoRoot}: ${what}`];
  const zone = ruleTimeZone(rule);
  const next = registration.nextFiringAt;
  if (next) {
    const utc = zone === "UTC" ? "" : ` (${wallClock(next, "UTC")} UTC)`;
    lines.push(
      `next firing ${wallClock(next, zone)} ${zone}${utc}; each firing starts a new loop ${schedule.name}-<yyyymmdd>-<hhmm>`,
    );
  }
  lines.push("the schedule fires while loopwright serve runs; loopwright schedules lists it and its firings");
  process.stdout.write(`${lines.join("\n")}\n`);
  return 0;
}

function describeReplaced(rule: unknown): string {
  const known = rule as Parameters<typeof describeRule>[0] | null;
  return known && typeof known === "object" && ("every" in known || "cron" in known)
    ? describeRule(known)
    : "damaged";
}
