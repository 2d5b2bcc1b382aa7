/**
 * When a schedule fires, decided without IO: given its rule, the time it counts from, the last firing
 * time already considered and `now`, which firing times are due. The latest due time fires; every
 * earlier one was missed (the service was down or busy) and is recorded, never replayed.
 */
import { parseCron, type ScheduleRule } from "../../core/schedule-field.ts";

/** At most this many missed firings are listed per decision: a year down on a 1m schedule is not 500,000 rows. */
export const missedListLimit = 100;

export interface DueFirings {
  /** The latest firing time in (consideredUntil, now]: the one that fires (or is skipped), if any. */
  latest?: Date;
  /** Earlier due firing times, oldest first: missed. At most `missedListLimit`, the most recent ones. */
  missed: Date[];
  /** True when more firings were missed than `missed` lists. */
  missedUnlisted: boolean;
}

/**
 * The firing times of `rule` after `consideredUntil` and at or before `now`. `anchor` is when an `every`
 * rule counts from (its firings are anchor + k × period, k ≥ 1); a cron rule ignores it.
 */
export function dueFirings(rule: ScheduleRule, anchor: Date, consideredUntil: Date, now: Date): DueFirings {
  const times =
    "every" in rule
      ? everyTimes(rule.every, anchor, consideredUntil, now)
      : cronTimes(rule, consideredUntil, now);
  if (times.length === 0) return { missed: [], missedUnlisted: false };
  const missed = times.slice(0, -1);
  return {
    latest: times.at(-1),
    missed: missed.slice(-missedListLimit),
    missedUnlisted: missed.length > missedListLimit,
  };
}

/** The first firing time strictly after `after`, or undefined when the rule never fires again. */
export function nextFiring(rule: ScheduleRule, anchor: Date, after: Date): Date | undefined {
  if ("every" in rule) {
    const elapsed = after.getTime() - anchor.getTime();
    const periods = elapsed < 0 ? 1 : Math.floor(elapsed / rule.every) + 1;
    return new Date(anchor.getTime() + periods * rule.every);
  }
  return parseCron(rule.cron, rule.timezone).nextRun(after) ?? undefined;
}

/** Up to `missedListLimit + 2` of the latest firing times of an `every` rule in (after, until], oldest first. */
function everyTimes(period: number, anchor: Date, after: Date, until: Date): Date[] {
  const last = Math.floor((until.getTime() - anchor.getTime()) / period);
  const first = Math.max(1, Math.floor((after.getTime() - anchor.getTime()) / period) + 1);
  const times: Date[] = [];
  for (let k = Math.max(first, last - missedListLimit - 1); k <= last; k++) {
    times.push(new Date(anchor.getTime() + k * period));
  }
  return times;
}

/**
 * Up to `missedListLimit + 2` of the latest cron firing times in (after, until], oldest first. Walks back
 * from `until` (croner's previous runs), so a long outage costs as much as a short one.
 */
function cronTimes(rule: { cron: string; timezone: string }, after: Date, until: Date): Date[] {
  const cron = parseCron(rule.cron, rule.timezone);
  // previousRuns excludes a run at its reference and works in whole seconds: look a second past `until`.
  const reference = new Date(until.getTime() + 1000);
  return cron
    .previousRuns(missedListLimit + 2, reference)
    .filter((time) => time.getTime() > after.getTime() && time.getTime() <= until.getTime())
    .reverse();
}
