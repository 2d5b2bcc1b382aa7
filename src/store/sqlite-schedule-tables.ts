/**
 * The embedded store's schedule tables (schedules and their firings): the `Store` methods over them, their
 * statements, and how a row reads back as a record. sqlite-store.ts delegates to it and lends it its
 * transaction and busy-retry runners.
 */
import type { DatabaseSync, StatementSync } from "node:sqlite";
import {
  type FiringClaim,
  type FiringOutcome,
  type FiringRecord,
  keptFiringsPerSchedule,
  type ScheduleRecord,
} from "./store.ts";

interface ScheduleRow {
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

interface FiringRow {
  id: number;
  schedule_id: string;
  scheduled_for: string;
  outcome: string;
  loop_id: string | null;
  reason: string | null;
  recorded_at: string;
}

/** How the store runs statements: in a write transaction, or retried while the database is busy. */
export interface StatementRunners {
  transaction<T>(work: () => T): Promise<T>;
  retrying<T>(work: () => T): Promise<T>;
}

/** The `Store` methods of schedules and firings, over one open database. */
export class ScheduleTables {
  readonly #statements: ReturnType<typeof prepareScheduleStatements>;
  readonly #runners: StatementRunners;

  constructor(database: DatabaseSync, runners: StatementRunners) {
    this.#statements = prepareScheduleStatements((sql) => database.prepare(sql));
    this.#runners = runners;
  }

  async save(
    schedule: Omit<ScheduleRecord, "id" | "createdAt" | "replacedAt">,
    at: string,
  ): Promise<{ schedule: ScheduleRecord; replaced?: ScheduleRecord }> {
    return await this.#runners.transaction(() => {
      const existing = this.#statements.scheduleByName.get(schedule.repoRoot, schedule.name) as
        | ScheduleRow
        | undefined;
      const values = [
        schedule.specPath,
        JSON.stringify(schedule.spec ?? null),
        JSON.stringify(schedule.rule ?? null),
        schedule.consideredUntil,
        schedule.nextFiringAt ?? null,
      ];
      if (existing) {
        this.#statements.replaceSchedule.run(...values, at, existing.id);
        return {
          schedule: {
            ...toScheduleRecord(existing),
            ...schedule,
            nextFiringAt: schedule.nextFiringAt,
            replacedAt: at,
          },
          replaced: toScheduleRecord(existing),
        };
      }
      const id = `${schedule.name.slice(0, 24)}-${randomHex(4)}`;
      this.#statements.insertSchedule.run(id, schedule.name, schedule.repoRoot, ...values, at);
      return { schedule: { ...schedule, id, createdAt: at } };
    });
  }

  async find(reference: string, repoRoot?: string): Promise<ScheduleRecord | undefined> {
    return this.#runners.retrying(() => {
      const byId = this.#statements.scheduleById.get(reference) as ScheduleRow | undefined;
      if (byId) return toScheduleRecord(byId);
      if (repoRoot !== undefined) {
        const byName = this.#statements.scheduleByName.get(repoRoot, reference) as ScheduleRow | undefined;
        return byName && toScheduleRecord(byName);
      }
      const named = this.#statements.schedulesByName.all(reference) as unknown as ScheduleRow[];
      return named.length === 1 ? toScheduleRecord(named[0]) : undefined;
    });
  }

  async list(repoRoot?: string): Promise<ScheduleRecord[]> {
    const rows = await this.#runners.retrying(() =>
      repoRoot === undefined
        ? this.#statements.allSchedules.all()
        : this.#statements.schedulesInRepository.all(repoRoot),
    );
    return (rows as unknown as ScheduleRow[]).map(toScheduleRecord);
  }

  async due(now: string): Promise<ScheduleRecord[]> {
    const rows = await this.#runners.retrying(() => this.#statements.dueSchedules.all(now));
    return (rows as unknown as ScheduleRow[]).map(toScheduleRecord);
  }

  async delete(scheduleId: string): Promise<void> {
    await this.#runners.transaction(() => {
      this.#statements.deleteFirings.run(scheduleId);
      this.#statements.deleteSchedule.run(scheduleId);
    });
  }

  async claimFirings(scheduleId: string, claim: FiringClaim): Promise<FiringRecord[] | undefined> {
    const now = new Date().toISOString();
    return await this.#runners.transaction(() => {
      const row = this.#statements.scheduleById.get(scheduleId) as ScheduleRow | undefined;
      if (!row || row.considered_until !== claim.expectedConsideredUntil) return undefined;
      const recorded: FiringRecord[] = [];
      for (const firing of claim.firings) {
        const inserted = this.#statements.insertFiring.get(
          scheduleId,
          firing.scheduledFor,
          firing.outcome,
          firing.loopId ?? null,
          firing.reason ?? null,
          now,
        ) as FiringRow | undefined;
        if (inserted) recorded.push(toFiringRecord(inserted));
      }
      this.#statements.moveSchedule.run(claim.consideredUntil, claim.nextFiringAt ?? null, scheduleId);
      this.#statements.pruneFirings.run(scheduleId, scheduleId, keptFiringsPerSchedule);
      return recorded;
    });
  }

  async settleFiring(
    firingId: number,
    outcome: FiringOutcome,
    details: { loopId?: string; reason?: string } = {},
  ): Promise<void> {
    const now = new Date().toISOString();
    await this.#runners.retrying(() =>
      this.#statements.settleFiring.run(
        outcome,
        details.loopId ?? null,
        details.reason ?? null,
        now,
        firingId,
      ),
    );
  }

  async listFirings(scheduleId: string, limit: number): Promise<FiringRecord[]> {
    const rows = await this.#runners.retrying(() => this.#statements.firingsOf.all(scheduleId, limit));
    return (rows as unknown as FiringRow[]).map(toFiringRecord);
  }

  async pendingFirings(): Promise<FiringRecord[]> {
    const rows = await this.#runners.retrying(() => this.#statements.pendingFirings.all());
    return (rows as unknown as FiringRow[]).map(toFiringRecord);
  }
}

/** The statements of the schedule tables, prepared once per open database. */
function prepareScheduleStatements(prepare: (sql: string) => StatementSync) {
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
function toScheduleRecord(row: ScheduleRow): ScheduleRecord {
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

function toFiringRecord(row: FiringRow): FiringRecord {
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

/** `bytes` random bytes in hex. node:crypto loads here, on first use: opening the store (`ls`, `show`) never needs it. */
function randomHex(bytes: number): string {
  return process.getBuiltinModule("node:crypto").randomBytes(bytes).toString("hex");
}
