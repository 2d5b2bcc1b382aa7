/**
 * The embedded store's schedule tables: their statements and how a row reads back as a record. The
 * transactions that use them live in sqlite-store.ts, with the rest of the store.
 */
import type { StatementSync } from "node:sqlite";
import type { FiringOutcome, FiringRecord, ScheduleRecord } from "./store.ts";

export interface ScheduleRow {
  id: string;
  name: string;
  repo_root: string;
  spec_path: string;
  spec: string;
  rule: string;
  created_at: string;
  replaced_at: string | null;
  considered_until: string;
  next_firing_at: string | null;
}

export interface FiringRow {
  id: number;
  schedule_id: string;
  scheduled_for: string;
  outcome: string;
  loop_id: string | null;
  reason: string | null;
  recorded_at: string;
}

/** The statements of the schedule tables, prepared once per open database. */
export function prepareScheduleStatements(prepare: (sql: string) => StatementSync) {
  const scheduleColumns =
    "id, name, repo_root, spec_path, spec, rule, created_at, replaced_at, considered_until, next_firing_at";
  const firingColumns = "id, schedule_id, scheduled_for, outcome, loop_id, reason, recorded_at";
  return {
    insertSchedule: prepare(
      `INSERT INTO schedules (id, name, repo_root, spec_path, spec, rule, considered_until, next_firing_at, created_at)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`,
    ),
    replaceSchedule: prepare(
      `UPDATE schedules SET spec_path = ?, spec = ?, rule = ?, considered_until = ?, next_firing_at = ?,
       replaced_at = ? WHERE id = ?`,
    ),
    scheduleById: prepare(`SELECT ${scheduleColumns} FROM schedules WHERE id = ?`),
    scheduleByName: prepare(`SELECT ${scheduleColumns} FROM schedules WHERE repo_root = ? AND name = ?`),
    schedulesByName: prepare(`SELECT ${scheduleColumns} FROM schedules WHERE name = ?`),
    allSchedules: prepare(`SELECT ${scheduleColumns} FROM schedules ORDER BY repo_root, name`),
    schedulesInRepository: prepare(
      `SELECT ${scheduleColumns} FROM schedules WHERE repo_root = ? ORDER BY name`,
    ),
    dueSchedules: prepare(
      `SELECT ${scheduleColumns} FROM schedules WHERE next_firing_at IS NOT NULL AND next_firing_at <= ?
       ORDER BY next_firing_at`,
    ),
    moveSchedule: prepare("UPDATE schedules SET considered_until = ?, next_firing_at = ? WHERE id = ?"),
    deleteSchedule: prepare("DELETE FROM schedules WHERE id = ?"),
    insertFiring: prepare(
      `INSERT INTO firings (schedule_id, scheduled_for, outcome, loop_id, reason, recorded_at)
       VALUES (?, ?, ?, ?, ?, ?) ON CONFLICT (schedule_id, scheduled_for) DO NOTHING
       RETURNING ${firingColumns}`,
    ),
    settleFiring: prepare(
      "UPDATE firings SET outcome = ?, loop_id = ?, reason = ?, recorded_at = ? WHERE id = ?",
    ),
    firingsOf: prepare(
      `SELECT ${firingColumns} FROM firings WHERE schedule_id = ? ORDER BY scheduled_for DESC, id DESC LIMIT ?`,
    ),
    pendingFirings: prepare(
      `SELECT ${firingColumns} FROM firings WHERE outcome = 'pending' ORDER BY scheduled_for, id`,
    ),
    pruneFirings: prepare(
      `DELETE FROM firings WHERE schedule_id = ? AND outcome != 'pending' AND id NOT IN
       (SELECT id FROM firings WHERE schedule_id = ? ORDER BY scheduled_for DESC, id DESC LIMIT ?)`,
    ),
    deleteFirings: prepare("DELETE FROM firings WHERE schedule_id = ?"),
  };
}

/** A schedule whose stored spec or rule is not valid JSON comes back with it null (never fired, listed as damaged). */
export function toScheduleRecord(row: ScheduleRow): ScheduleRecord {
  return {
    id: row.id,
    name: row.name,
    repoRoot: row.repo_root,
    specPath: row.spec_path,
    spec: parseJson(row.spec),
    rule: parseJson(row.rule),
    createdAt: row.created_at,
    ...(row.replaced_at ? { replacedAt: row.replaced_at } : {}),
    consideredUntil: row.considered_until,
    ...(row.next_firing_at ? { nextFiringAt: row.next_firing_at } : {}),
  };
}

export function toFiringRecord(row: FiringRow): FiringRecord {
  return {
    id: row.id,
    scheduleId: row.schedule_id,
    scheduledFor: row.scheduled_for,
    outcome: row.outcome as FiringOutcome,
    ...(row.loop_id ? { loopId: row.loop_id } : {}),
    ...(row.reason ? { reason: row.reason } : {}),
    recordedAt: row.recorded_at,
  };
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return null;
  }
}
