/**
 * Schemas of schedules as `schedules --json` prints them and the API answers them (the shapes of
 * src/service/schedules/list-schedules.ts, checked against them by tsc).
 */
import { z } from "zod";
import type { ScheduleView, ShownTime } from "../../service/schedules/list-schedules.ts";

/** A moment as ISO (UTC), and on the wall clocks of the schedule's zone and of UTC. */
export const shownTimeSchema = z.object({
  at: z.string().describe("ISO 8601, UTC"),
  local: z.string().describe("YYYY-MM-DD HH:MM in the schedule's zone"),
  timezone: z.string(),
  utc: z.string().describe("YYYY-MM-DD HH:MM in UTC"),
}) satisfies z.ZodType<ShownTime>;

export const scheduleRuleSchema = z.union([
  z.object({ cron: z.string(), timezone: z.string() }),
  z.object({ every: z.number().describe("milliseconds") }),
]);

export const firingSchema = z.object({
  id: z.number(),
  scheduleId: z.string(),
  scheduledFor: z.string(),
  outcome: z.enum(["pending", "started", "skipped-active", "missed", "failed"]),
  loopId: z
    .string()
    .optional()
    .describe("started: the loop it created; skipped-active: the run still active"),
  reason: z.string().optional(),
  recordedAt: z.string(),
  time: shownTimeSchema,
});

export const scheduleViewSchema = z.object({
  id: z.string(),
  name: z.string(),
  repoRoot: z.string(),
  specPath: z.string(),
  rule: scheduleRuleSchema.optional().describe("absent when the stored row is damaged"),
  description: z.string().describe("cron 0 3 * * 1-5 (Europe/Paris), every 30m"),
  createdAt: z.string(),
  replacedAt: z.string().optional(),
  nextFiring: shownTimeSchema.optional(),
  overdueSince: shownTimeSchema.optional().describe("a firing time passed undecided: is a service running?"),
  recentFirings: z.array(firingSchema).describe("newest first"),
  problem: z.string().optional(),
}) satisfies z.ZodType<ScheduleView>;

export const scheduleListSchema = z.array(scheduleViewSchema);

/** The answer to removing a schedule. */
export const scheduleRemovedSchema = z.object({
  scheduleId: z.string(),
  name: z.string(),
  repoRoot: z.string(),
  message: z.string(),
});
export type ScheduleRemoved = z.infer<typeof scheduleRemovedSchema>;
