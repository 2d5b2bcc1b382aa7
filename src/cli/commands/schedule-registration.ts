/**
 * What `run --detach` says about a spec with `schedule:`: the schedule it registered or replaced, its
 * first firing in the schedule's zone and in UTC, and whether a service is there to fire it.
 */
import { describeRule, type ScheduleRule } from "../../core/schedule-field.ts";
import { ruleTimeZone, wallClock } from "../../service/schedules/firing-names.ts";
import type { Registration } from "../../service/schedules/register-schedule.ts";
import type { ServiceInfo } from "../../service/service-file.ts";

/** The registration as one JSON object (`--json`), or as a few lines for a person. */
export function describeRegistration(
  registration: Registration,
  service: ServiceInfo | undefined,
  json: boolean,
): string {
  const { schedule, rule, replaced } = registration;
  const zone = ruleTimeZone(rule);
  const next = registration.nextFiringAt;
  if (json) {
    return `${JSON.stringify({
      schedule: { id: schedule.id, name: schedule.name, repoRoot: schedule.repoRoot },
      rule,
      replaced: replaced ? { rule: replaced.rule } : null,
      nextFiring: next
        ? {
            at: next.toISOString(),
            local: wallClock(next, zone),
            timezone: zone,
            utc: wallClock(next, "UTC"),
          }
        : null,
      service: service ?? null,
    })}\n`;
  }
  const what = describeRule(rule);
  const lines = [
    replaced
      ? `replaced schedule ${schedule.name} in ${schedule.repoRoot}: was ${describeStoredRule(replaced.rule)}, now ${what}`
      : `registered schedule ${schedule.name} in ${schedule.repoRoot}: ${what}`,
  ];
  if (next) {
    const utc = zone === "UTC" ? "" : ` (${wallClock(next, "UTC")} UTC)`;
    lines.push(
      `next firing ${wallClock(next, zone)} ${zone}${utc}; each firing starts a new loop ${schedule.name}-<yyyymmdd>-<hhmm>`,
    );
  }
  lines.push(
    service
      ? `the service at ${service.url} (pid ${service.pid}) fires it; \`loopwright schedules\` lists its firings`
      : "no service is running: start one with `loopwright serve`, which fires schedules; `loopwright schedules` lists them",
  );
  return `${lines.join("\n")}\n`;
}

function describeStoredRule(rule: unknown): string {
  const known = rule as ScheduleRule | null;
  return known && typeof known === "object" && ("every" in known || "cron" in known)
    ? describeRule(known)
    : "damaged";
}
