/**
 * Schedules as the CLI (`loopwright schedules`) and the API show them: the rule, the next firing time
 * in the schedule's zone and in UTC, and the latest firings with their outcomes.
 */
import { describeRule, type ScheduleRule } from "../../core/schedule-field.ts";
import type { FiringRecord, Store } from "../../store/store.ts";
import { ruleTimeZone, wallClock } from "./firing-names.ts";
import { nextFiring } from "./firing-times.ts";
import { readStoredSchedule } from "./stored-schedule.ts";

/** How late a firing may be before the list calls it overdue. */
const overdueAfterMs = 60_000;

/** A moment shown three ways: ISO (UTC), the wall clock of the schedule's zone, and of UTC. */
export interface ShownTime {
  at: string;
  /** `2026-12-01 03:00` in `timezone`. */
  local: string;
  timezone: string;
  /** `2026-12-01 02:00` in UTC. */
  utc: string;
}

export interface ScheduleView {
  id: string;
  name: string;
  repoRoot: string;
  specPath: string;
  /** Undefined when the stored row is damaged (`problem` says so). */
  rule?: ScheduleRule;
  /** `cron 0 3 * * 1-5 (Europe/Paris)`, `every 30m`. */
  description: string;
  createdAt: string;
  replacedAt?: string;
  /** The next firing time after now; undefined when the rule never fires again or the row is damaged. */
  nextFiring?: ShownTime;
  /** Set when a firing time has passed without the service deciding it: is `loopwright serve` running? */
  overdueSince?: ShownTime;
  recentFirings: (FiringRecord & { time: ShownTime })[];
  problem?: string;
}

/**
 * Every schedule (of `repoRoot` when given), by repository then name, each with up to `firings` of its
 * latest firings (default 5), newest first.
 */
export async function listSchedules(
  store: Store,
  now: Date = new Date(),
  options: { repoRoot?: string; firings?: number } = {},
): Promise<ScheduleView[]> {
  const views: ScheduleView[] = [];
  for (const record of await store.listSchedules(options.repoRoot)) {
    const read = readStoredSchedule(record);
    const zone = read.ok ? ruleTimeZone(read.schedule.rule) : "UTC";
    const firings = await store.listFirings(record.id, options.firings ?? 5);
    const base = {
      id: record.id,
      name: record.name,
      repoRoot: record.repoRoot,
      specPath: record.specPath,
      createdAt: record.createdAt,
      ...(record.replacedAt ? { replacedAt: record.replacedAt } : {}),
      recentFirings: firings.map((firing) => ({
        ...firing,
        time: showTime(new Date(firing.scheduledFor), zone),
      })),
    };
    if (!read.ok) {
      views.push({ ...base, description: "damaged", problem: read.problem });
      continue;
    }
    const { rule, anchor } = read.schedule;
    const after = new Date(Math.max(now.getTime(), new Date(record.consideredUntil).getTime()));
    const next = nextFiring(rule, anchor, after);
    // A tick or two late is normal; a minute late means no service is deciding this schedule's firings.
    const overdue =
      record.nextFiringAt !== undefined &&
      new Date(record.nextFiringAt).getTime() < now.getTime() - overdueAfterMs;
    views.push({
      ...base,
      rule,
      description: describeRule(rule),
      ...(next ? { nextFiring: showTime(next, zone) } : {}),
      ...(overdue && record.nextFiringAt
        ? { overdueSince: showTime(new Date(record.nextFiringAt), zone) }
        : {}),
    });
  }
  return views;
}

function showTime(time: Date, timezone: string): ShownTime {
  return { at: time.toISOString(), local: wallClock(time, timezone), timezone, utc: wallClock(time, "UTC") };
}
