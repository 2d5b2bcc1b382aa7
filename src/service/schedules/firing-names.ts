/**
 * What a firing's loop is called: the schedule's name and the firing time on the wall clock of the
 * schedule's zone (UTC for `every`), `nightly-20261201-0300`, on its own branch. Pure.
 */
import type { ScheduleRule } from "../../core/schedule-field.ts";

/** The zone a rule's times are shown and named in. */
export function ruleTimeZone(rule: ScheduleRule): string {
  return "timezone" in rule ? rule.timezone : "UTC";
}

/** `2026-12-01 03:00` on the wall clock of `timeZone`. */
export function wallClock(time: Date, timeZone: string): string {
  const parts = Object.fromEntries(
    new Intl.DateTimeFormat("en-CA", {
      timeZone,
      year: "numeric",
      month: "2-digit",
      day: "2-digit",
      hour: "2-digit",
      minute: "2-digit",
      hourCycle: "h23",
    })
      .formatToParts(time)
      .map((part) => [part.type, part.value]),
  );
  return `${parts.year}-${parts.month}-${parts.day} ${parts.hour}:${parts.minute}`;
}

/**
 * The loop name of a firing: `<schedule>-<yyyymmdd>-<hhmm>` in the rule's zone. When the clocks go back
 * and the same wall-clock minute comes twice, its second firing gets `-2`, so every firing's name is its own.
 */
export function firingLoopName(scheduleName: string, time: Date, rule: ScheduleRule): string {
  const zone = ruleTimeZone(rule);
  const wall = wallClock(time, zone);
  const stamp = wall.replaceAll("-", "").replace(" ", "-").replace(":", "");
  const repeated = [30, 60, 120].some(
    (minutes) => wallClock(new Date(time.getTime() - minutes * 60_000), zone) === wall,
  );
  return `${scheduleName}-${stamp}${repeated ? "-2" : ""}`;
}

/**
 * The branch of a firing's loop: the spec's default branch pattern (`loop/<name>`) with the firing's
 * name, or a branch the spec names explicitly with the firing's stamp appended (`fix/nightly-20261201-0300`).
 */
export function firingBranch(spec: { name: string; branch: string }, loopName: string): string {
  if (spec.branch === `loop/${spec.name}`) return `loop/${loopName}`;
  return `${spec.branch}${loopName.slice(spec.name.length)}`;
}
