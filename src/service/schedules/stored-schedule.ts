/**
 * A stored schedule read back for use: its rule and spec snapshot checked for shape, so that one
 * damaged row (hand-edited, or written by another version) is reported instead of crashing a tick.
 */
import { z } from "zod";
import type { ScheduleRule } from "../../core/schedule-field.ts";
import type { ParsedSpec } from "../../core/spec-file.ts";
import type { ScheduleRecord } from "../../store/store.ts";

export type UsableSchedule = {
  record: ScheduleRecord;
  rule: ScheduleRule;
  snapshot: ParsedSpec;
  /** When an `every` rule counts from: the last (re)registration. */
  anchor: Date;
};

const ruleSchema = z.union([
  z.object({ cron: z.string().min(1), timezone: z.string().min(1) }).strict(),
  z.object({ every: z.number().int().positive() }).strict(),
]);

const snapshotSchema = z.looseObject({
  spec: z.looseObject({ name: z.string().min(1), branch: z.string().min(1) }),
  specDirectory: z.string().min(1),
  repoPath: z.string().min(1),
});

/** The schedule ready to fire, or why it cannot be read (`problem`). */
export function readStoredSchedule(
  record: ScheduleRecord,
): { ok: true; schedule: UsableSchedule } | { ok: false; problem: string } {
  const rule = ruleSchema.safeParse(record.rule);
  if (!rule.success)
    return { ok: false, problem: "its stored rule is damaged; register it again with run --detach" };
  const snapshot = snapshotSchema.safeParse(record.spec);
  if (!snapshot.success)
    return { ok: false, problem: "its stored spec is damaged; register it again with run --detach" };
  return {
    ok: true,
    schedule: {
      record,
      rule: rule.data,
      snapshot: snapshot.data as unknown as ParsedSpec,
      anchor: new Date(record.replacedAt ?? record.createdAt),
    },
  };
}
