/**
 * A parsed `schedule:` rule and how a person reads it, apart from the schema (schedule-field.ts) so
 * that describing a rule loads no schema library.
 */
import { formatDuration } from "./duration.ts";

/** A parsed schedule: the cron expression and its IANA time zone, or a period in milliseconds. */
export type ScheduleRule = { cron: string; timezone: string } | { every: number };

/** How a person reads a rule: `cron 0 3 * * 1-5 (Europe/Paris)`, `every 30m`. */
export function describeRule(rule: ScheduleRule): string {
  return "every" in rule ? `every ${formatPeriod(rule.every)}` : `cron ${rule.cron} (${rule.timezone})`;
}

/** `30m`, `2h`, `1h30m`, `90s`: a period as written in a spec. */
export function formatPeriod(milliseconds: number): string {
  if (milliseconds % 3_600_000 === 0) return `${milliseconds / 3_600_000}h`;
  if (milliseconds % 60_000 === 0) {
    const minutes = milliseconds / 60_000;
    return minutes > 60 ? `${Math.floor(minutes / 60)}h${minutes % 60}m` : `${minutes}m`;
  }
  return formatDuration(milliseconds);
}
