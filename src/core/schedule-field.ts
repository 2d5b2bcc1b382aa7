import { Cron } from "croner";
import { z } from "zod";
import { parseDuration } from "./duration.ts";
import { formatPeriod, type ScheduleRule } from "./schedule-rule.ts";
import { editDistance } from "./spec-problems.ts";

export { describeRule, type ScheduleRule } from "./schedule-rule.ts";

/**
 * The spec's optional `schedule:` field: when the service starts a new run of the loop.
 * `{ cron: "0 3 * * 1-5", timezone: Europe/Paris }` fires at the cron's times in that zone (five
 * fields, minute precision, parsed by croner); `{ every: 30m }` fires every period, counted from when
 * the schedule was registered. Exactly one of the two; `every` is at least `minimumEvery`. Lazy: built
 * at the first spec that has a schedule (see spec.ts).
 */

/** The shortest `every`: each firing starts a whole loop, so seconds apart would only pile up skips. */
export const minimumEveryMs = 60_000;

const cronHint = "five fields: minute hour day-of-month month day-of-week, e.g. 0 3 * * 1-5";

export const scheduleSchema = z.lazy(() =>
  z
    .object({
      cron: z.string().optional().describe(`A cron expression, ${cronHint}`),
      timezone: z.string().optional().describe("The cron's IANA time zone, e.g. Europe/Paris or UTC"),
      every: z
        .union([z.number(), z.string()])
        .optional()
        .describe("A period of at least 1m (30m, 2h), counted from when the schedule is registered"),
    })
    .strict()
    .superRefine((schedule, context) => {
      const problem = (path: string[], message: string) =>
        context.addIssue({ code: "custom", path, message });
      const hasCron = schedule.cron !== undefined;
      const hasEvery = schedule.every !== undefined;
      if (!hasCron && !hasEvery) {
        problem(
          [],
          "give cron (with timezone) or every, e.g. { every: 30m } or { cron: 0 3 * * 1-5, timezone: UTC }",
        );
        return;
      }
      if (hasCron && hasEvery) {
        problem(["every"], "give either cron or every, not both");
        return;
      }
      if (schedule.every !== undefined) {
        if (schedule.timezone !== undefined)
          problem(["timezone"], "only with cron: every counts from when the schedule is registered");
        const everyProblem = everyProblemOf(schedule.every);
        if (everyProblem) problem(["every"], everyProblem);
        return;
      }
      const timezone = schedule.timezone === undefined ? undefined : canonicalTimeZone(schedule.timezone);
      if (schedule.timezone === undefined)
        problem(
          ["timezone"],
          "required with cron: a time zone such as Europe/Paris, America/New_York or UTC",
        );
      else if (timezone === undefined) problem(["timezone"], unknownTimeZoneMessage(schedule.timezone));
      const cronProblem = cronProblemOf(schedule.cron ?? "", timezone ?? "UTC");
      if (cronProblem) problem(["cron"], cronProblem);
    })
    .transform((schedule): ScheduleRule => {
      if (schedule.every !== undefined) return { every: parseDuration(schedule.every) ?? minimumEveryMs };
      return {
        cron: (schedule.cron ?? "").trim(),
        timezone: canonicalTimeZone(schedule.timezone ?? "UTC") ?? "UTC",
      };
    }),
);

/** A croner job that never runs by itself, for computing times: five fields, minute precision; throws on a bad pattern. */
export function parseCron(expression: string, timezone: string): Cron {
  return new Cron(expression.trim(), { timezone, mode: "5-part", paused: true });
}

/** The zone's canonical IANA name (`europe/paris` → `Europe/Paris`), or undefined when it is unknown. */
export function canonicalTimeZone(name: string): string | undefined {
  if (name.trim() === "") return undefined;
  try {
    return new Intl.DateTimeFormat("en", { timeZone: name.trim() }).resolvedOptions().timeZone;
  } catch {
    return undefined;
  }
}

function unknownTimeZoneMessage(name: string): string {
  const lower = name.trim().toLowerCase();
  const close = Intl.supportedValuesOf("timeZone").filter((zone) => {
    const city = zone.split("/").at(-1)?.toLowerCase() ?? "";
    return editDistance(zone.toLowerCase(), lower) <= 2 || (city.length > 3 && lower.endsWith(city));
  });
  const hint = close.length > 0 && close.length <= 3 ? ` (did you mean ${close.join(" or ")}?)` : "";
  return `unknown time zone '${name}'${hint}; use an IANA name such as Europe/Paris or UTC`;
}

function everyProblemOf(value: string | number): string | undefined {
  const milliseconds = parseDuration(value);
  if (milliseconds === undefined) return `not a duration: ${JSON.stringify(value)} (use 30m, 2h, 24h)`;
  if (milliseconds < minimumEveryMs)
    return `must be at least ${formatPeriod(minimumEveryMs)}: each firing starts a whole loop`;
  return undefined;
}

function cronProblemOf(expression: string, timezone: string): string | undefined {
  if (expression.trim() === "") return `must not be empty (${cronHint})`;
  let cron: Cron;
  try {
    cron = parseCron(expression, timezone);
  } catch (error) {
    const reason = (error as Error).message.replace(/^CronPattern: /, "");
    const parts = expression.trim().split(/\s+/).length;
    if (parts !== 5 && !expression.trim().startsWith("@"))
      return `not a cron expression: '${expression}' has ${parts} fields (${cronHint})`;
    return `not a cron expression: ${reason} (${cronHint})`;
  }
  if (cron.nextRun(new Date()) === null) return `'${expression}' never fires`;
  return undefined;
}
