import { DatabaseSync, type StatementSync } from "node:sqlite";
import { pathToFileURL } from "node:url";
import type { LockOwner } from "../core/lock-owner.ts";
import { LoopNotFoundError, StoreError, UsageError } from "../errors.ts";
import { readFileSync } from "../files/node-fs.ts";
import { isLockOwnerAlive } from "../process/liveness.ts";
import type { ScheduleTables } from "./sqlite-schedule-tables.ts";
import type {
  AppendOptions,
  FiringClaim,
  FiringOutcome,
  FiringRecord,
  LockResult,
  LoopRecord,
  ScheduleRecord,
  Store,
  StoredEvent,
} from "./store.ts";

/**
 * The embedded store: one SQLite file shared by every loopwright process on the machine.
 *
 * WAL mode, so readers never wait for the writer; a busy database (another process holding the write
 * lock) is retried with backoff for up to a minute (`LOOPWRIGHT_STORE_BUSY_MS`), each attempt waiting
 * only briefly inside SQLite so the process's event loop is never blocked for long; `synchronous=FULL`, so an appended event survives not only the death
 * of the process (WAL with NORMAL already does) but also a power cut or kernel crash right after
 * `appendEvent` resolved: the timeline is the only source of truth. The controller defers that flush
 * (`deferSync`) for the events a resume can do without, which the next synced append carries to the
 * disk: a flush costs 1–6 ms here, against 0.02 ms for the commit itself.
 */

/**
 * Schema migrations, applied in order on open; entry `i` brings the schema to version `i + 1`.
 * Append only: never edit a released migration, add a new one.
 */
const migrations: string[] = [
  `
  CREATE TABLE loops (
    id TEXT PRIMARY KEY,
    name TEXT NOT NULL,
    repo_root TEXT NOT NULL,
    spec_path TEXT NOT NULL,
    spec TEXT NOT NULL,
    created_at TEXT NOT NULL,
    UNIQUE (repo_root, name)
  );
  CREATE TABLE events (
    loop_id TEXT NOT NULL REFERENCES loops (id) ON DELETE CASCADE,
    seq INTEGER NOT NULL,
    type TEXT NOT NULL,
    version INTEGER NOT NULL,
    at TEXT NOT NULL,
    data TEXT NOT NULL,
    PRIMARY KEY (loop_id, seq)
  );
  CREATE TABLE locks (
    loop_id TEXT PRIMARY KEY REFERENCES loops (id) ON DELETE CASCADE,
    run_id TEXT NOT NULL,
    pid INTEGER NOT NULL,
    host TEXT NOT NULL,
    process_start TEXT NOT NULL,
    acquired_at TEXT NOT NULL
  );
  `,
  `
  CREATE TABLE schedules (
    id TEXT PRIMARY KEY,
    name TEXT NOT NULL,
    repo_root TEXT NOT NULL,
    spec_path TEXT NOT NULL,
    spec TEXT NOT NULL,
    rule TEXT NOT NULL,
    created_at TEXT NOT NULL,
    replaced_at TEXT,
    considered_until TEXT NOT NULL,
    next_firing_at TEXT,
    UNIQUE (repo_root, name)
  );
  CREATE INDEX schedules_by_next_firing ON schedules (next_firing_at);
  CREATE TABLE firings (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    schedule_id TEXT NOT NULL REFERENCES schedules (id) ON DELETE CASCADE,
    scheduled_for TEXT NOT NULL,
    outcome TEXT NOT NULL,
    loop_id TEXT,
    reason TEXT,
    recorded_at TEXT NOT NULL,
    UNIQUE (schedule_id, scheduled_for)
  );
  CREATE INDEX firings_pending ON firings (outcome) WHERE outcome = 'pending';
  `,
  // 3: a global event id, strictly increasing in commit order and never reused (AUTOINCREMENT keeps
  // the highest id ever handed out in sqlite_sequence, so deleting a loop frees none). Existing rows
  // are numbered in the order they were appended (their rowid).
  `
  CREATE TABLE events_with_id (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    loop_id TEXT NOT NULL REFERENCES loops (id) ON DELETE CASCADE,
    seq INTEGER NOT NULL,
    type TEXT NOT NULL,
    version INTEGER NOT NULL,
    at TEXT NOT NULL,
    data TEXT NOT NULL,
    UNIQUE (loop_id, seq)
  );
  INSERT INTO events_with_id (loop_id, seq, type, version, at, data)
    SELECT loop_id, seq, type, version, at, data FROM events ORDER BY rowid;
  DROP TABLE events;
  ALTER TABLE events_with_id RENAME TO events;
  `,
  // 4: one loop's events by global id (a timeline page, a loop's live stream catching up) read from an
  // index instead of sorting the loop's whole timeline per page.
  `
  CREATE INDEX events_by_loop_and_id ON events (loop_id, id);
  `,
  // 5: facts about the store itself: `boot`, the machine boot the global ids were last reserved in
  // (see `reservedIdGap`).
  `
  CREATE TABLE store_facts (name TEXT PRIMARY KEY, value TEXT NOT NULL);
  `,
];

/** How long a busy database is retried before `StoreError`, in ms; `LOOPWRIGHT_STORE_BUSY_MS` overrides. */
const defaultBusyLimitMs = 60_000;
/** SQLite's own wait per attempt: short, because it blocks the whole process while it waits. */
const busyWaitPerAttemptMs = 200;

/** SQLite's primary result codes that loopwright tells apart. */
const sqliteCode = {
  perm: 3,
  busy: 5,
  locked: 6,
  readOnly: 8,
  ioError: 10,
  corrupt: 11,
  full: 13,
  cantOpen: 14,
  notADatabase: 26,
};

/** The schema version this code writes and reads. */
export const schemaVersion = migrations.length;

interface LoopRow {
  id: string;
  name: string;
  repo_root: string;
  spec_path: string;
  spec: string;
  created_at: string;
}

interface EventRow {
  id: number;
  loop_id: string;
  seq: number;
  type: string;
  version: number;
  at: string;
  data: string;
}

interface LockRow {
  run_id: string;
  pid: number;
  host: string;
  process_start: string;
}

/**
 * Opens (creating if needed) the SQLite store at `path` and migrates its schema. The folder must
 * exist. When the file cannot be written (a read-only home), it is opened read-only: reading works,
 * writing throws `StoreError`. Throws `UsageError` when the file was written by a newer loopwright, and
 * `StoreError` (naming the file) when it is corrupt, not a database, or cannot be opened.
 */
export function openSqliteStore(path: string): Store {
  return new SqliteStore(path);
}

/**
 * How far the global event id sequence moves after a power cut. An append made without a flush
 * (`deferSync`) is visible to readers at once (a live feed sends its id) and survives the death of its
 * process, but a power cut (or a kernel crash) can undo it, and SQLite would then hand the same id out
 * again: a feed client resuming from it would miss the new events. Such a loss always ends a boot of
 * the machine. So the store keeps the boot it last reserved ids in (`store_facts.boot`, written in a
 * flushed commit), and the first append of a process in another boot moves the sequence this far, in a
 * flushed commit: every id handed out since is above any id lost, as long as fewer than this many
 * events were appended between two flushes (a handful per iteration: every agent turn is flushed).
 * Within a boot ids stay dense. Where the boot cannot be read, nothing is deferred.
 */
const reservedIdGap = 2 ** 20;

let boot: string | undefined;

/** This boot of the machine (Linux's boot id), or "" where it cannot be read. Read once, when first asked. */
function currentBoot(): string {
  if (boot === undefined) {
    try {
      boot = readFileSync("/proc/sys/kernel/random/boot_id", "utf8").trim();
    } catch {
      boot = "";
    }
  }
  return boot;
}

class SqliteStore implements Store {
  readonly #path: string;
  /** This process has appended: the boot was checked (and the ids reserved when it had changed). */
  #bootChecked = false;
  readonly #database: DatabaseSync;
  readonly #statements: ReturnType<typeof prepareStatements>;
  /** Loaded and prepared at the first schedule call: `ls`, `show` and a loop's run never touch them. */
  #schedules: Promise<ScheduleTables> | undefined;

  constructor(path: string) {
    this.#path = path;
    let database: DatabaseSync | undefined;
    try {
      try {
        database = openWritable(path);
      } catch (error) {
        database?.close();
        if (!isUnwritable(error)) throw error;
        database = openReadOnly(path);
      }
      this.#database = database;
      this.#statements = prepareStatements(database);
    } catch (error) {
      if (database?.isOpen) database.close();
      throw describeFailure(error, path);
    }
  }

  async createLoop(loop: Omit<LoopRecord, "createdAt">): Promise<LoopRecord> {
    const record: LoopRecord = { ...loop, createdAt: new Date().toISOString() };
    await this.#transaction(() => this.#insertLoop(record));
    return record;
  }

  async createLoopWithEvent(
    loop: Omit<LoopRecord, "createdAt">,
    event: { type: string; data: Record<string, unknown>; version?: number },
  ): Promise<{ loop: LoopRecord; event: StoredEvent }> {
    const record: LoopRecord = { ...loop, createdAt: new Date().toISOString() };
    const at = new Date().toISOString();
    const serialized = JSON.stringify(event.data);
    const version = event.version ?? 1;
    const recordedBoot = this.#bootChecked ? "same" : await this.#retrying(() => this.#recordedBoot());
    const row = await this.#transaction(() => {
      this.#insertLoop(record);
      return this.#insertEvent(record.id, event.type, version, at, serialized, recordedBoot);
    });
    this.#bootChecked = true;
    const stored: StoredEvent = {
      id: row.id,
      loopId: record.id,
      seq: row.seq,
      type: event.type,
      version,
      at,
      data: JSON.parse(serialized),
    };
    return { loop: record, event: stored };
  }

  /** Inserts the loop's row, inside a transaction; `UsageError` when its repository has one of that name. */
  #insertLoop(record: LoopRecord): void {
    const existing = this.#statements.loopByName.get(record.repoRoot, record.name) as LoopRow | undefined;
    if (existing) {
      throw new UsageError(
        `a loop named "${record.name}" already exists in ${record.repoRoot} (id ${existing.id}); pick another name or delete it first`,
      );
    }
    this.#statements.insertLoop.run(
      record.id,
      record.name,
      record.repoRoot,
      record.specPath,
      JSON.stringify(record.spec ?? null),
      record.createdAt,
    );
  }

  /**
   * Finds a loop by exact id first, then by name: within `repoRoot` when given; otherwise only when
   * exactly one loop anywhere has that name (an ambiguous name yields undefined rather than a guess).
   */
  async findLoop(reference: string, repoRoot?: string): Promise<LoopRecord | undefined> {
    return this.#retrying(() => {
      const byId = this.#statements.loopById.get(reference) as LoopRow | undefined;
      if (byId) return toLoopRecord(byId);
      if (repoRoot !== undefined) {
        const byName = this.#statements.loopByName.get(repoRoot, reference) as LoopRow | undefined;
        return byName && toLoopRecord(byName);
      }
      const named = this.#statements.loopsByName.all(reference) as unknown as LoopRow[];
      return named.length === 1 ? toLoopRecord(named[0]) : undefined;
    });
  }

  async listLoops(repoRoot?: string): Promise<LoopRecord[]> {
    const rows = await this.#retrying(() =>
      repoRoot === undefined
        ? this.#statements.allLoops.all()
        : this.#statements.loopsInRepository.all(repoRoot),
    );
    return (rows as unknown as LoopRow[]).map(toLoopRecord);
  }

  async deleteLoop(loopId: string): Promise<void> {
    await this.#transaction(() => {
      this.#statements.deleteLock.run(loopId);
      this.#statements.deleteEvents.run(loopId);
      this.#statements.deleteLoop.run(loopId);
    });
  }

  /** Throws `LoopNotFoundError` when no loop has this id. */
  async appendEvent(
    loopId: string,
    type: string,
    data: Record<string, unknown>,
    version = 1,
    options: AppendOptions = {},
  ): Promise<StoredEvent> {
    const at = new Date().toISOString();
    const serialized = JSON.stringify(data);
    const recordedBoot = this.#bootChecked ? "same" : await this.#retrying(() => this.#recordedBoot());
    const insert = () => {
      this.#requireLoop(loopId);
      return this.#insertEvent(loopId, type, version, at, serialized, recordedBoot);
    };
    // Unflushed only once the boot this process appends in is on the disk, and only where a power cut can
    // be told by the boot it ends (see `reservedIdGap`).
    const sync = recordedBoot !== "same" || !options.deferSync || currentBoot() === "";
    const row = await this.#transaction(insert, { sync });
    this.#bootChecked = true;
    return { id: row.id, loopId, seq: row.seq, type, version, at, data: JSON.parse(serialized) };
  }

  /**
   * Inserts one event of an existing loop, inside a transaction, recording the boot first as
   * `recordedBoot` requires (reserving ids after another boot: see `reservedIdGap`).
   */
  #insertEvent(
    loopId: string,
    type: string,
    version: number,
    at: string,
    serialized: string,
    recordedBoot: "same" | "missing" | "other",
  ): { id: number; seq: number } {
    if (recordedBoot === "missing") this.#statements.recordFactIfMissing.run("boot", currentBoot());
    if (recordedBoot === "other") {
      this.#statements.sequenceRow.run();
      this.#statements.reserveIds.run(reservedIdGap);
      this.#statements.recordFact.run("boot", currentBoot());
    }
    return this.#statements.insertEvent.get(loopId, type, version, at, serialized, loopId) as {
      id: number;
      seq: number;
    };
  }

  /** A row whose data is not a JSON object comes back with `damage` set and empty data. */
  async readEvents(loopId: string, afterSeq = 0): Promise<StoredEvent[]> {
    const rows = await this.#retrying(() => this.#statements.eventsAfter.all(loopId, afterSeq));
    return (rows as unknown as EventRow[]).map(toStoredEvent);
  }

  async readEventsAfter(afterId: number, limit: number, loopId?: string): Promise<StoredEvent[]> {
    const bounded = Math.max(1, Math.min(Math.floor(limit), 10_000));
    const rows = await this.#retrying(() =>
      loopId === undefined
        ? this.#statements.allEventsAfterId.all(afterId, bounded)
        : this.#statements.loopEventsAfterId.all(loopId, afterId, bounded),
    );
    return (rows as unknown as EventRow[]).map(toStoredEvent);
  }

  async lastEventId(): Promise<number> {
    const row = (await this.#retrying(() => this.#statements.lastEventId.get())) as { id: number };
    return Number(row.id);
  }

  /** Re-acquiring with the holder's own `runId` succeeds. Throws `LoopNotFoundError` for an unknown loop. */
  async acquireLock(loopId: string, owner: LockOwner): Promise<LockResult> {
    return await this.#transaction((): LockResult => {
      this.#requireLoop(loopId);
      const row = this.#statements.lockOf.get(loopId) as LockRow | undefined;
      if (row && row.run_id !== owner.runId) {
        const holder = toLockOwner(row);
        if (isLockOwnerAlive(holder)) return { acquired: false, holder };
      }
      this.#statements.upsertLock.run(
        loopId,
        owner.runId,
        owner.pid,
        owner.host,
        owner.processStart,
        new Date().toISOString(),
      );
      return { acquired: true };
    });
  }

  async releaseLock(loopId: string, runId: string): Promise<void> {
    await this.#retrying(() => this.#statements.releaseLock.run(loopId, runId));
  }

  async lockHolder(loopId: string): Promise<LockOwner | undefined> {
    const row = (await this.#retrying(() => this.#statements.lockOf.get(loopId))) as LockRow | undefined;
    if (!row) return undefined;
    const holder = toLockOwner(row);
    return isLockOwnerAlive(holder) ? holder : undefined;
  }

  async saveSchedule(
    schedule: Omit<ScheduleRecord, "id" | "createdAt" | "replacedAt">,
    at: string,
  ): Promise<{ schedule: ScheduleRecord; replaced?: ScheduleRecord }> {
    return (await this.#scheduleTables()).save(schedule, at);
  }

  async findSchedule(reference: string, repoRoot?: string): Promise<ScheduleRecord | undefined> {
    return (await this.#scheduleTables()).find(reference, repoRoot);
  }

  async listSchedules(repoRoot?: string): Promise<ScheduleRecord[]> {
    return (await this.#scheduleTables()).list(repoRoot);
  }

  async dueSchedules(now: string): Promise<ScheduleRecord[]> {
    return (await this.#scheduleTables()).due(now);
  }

  async deleteSchedule(scheduleId: string): Promise<void> {
    return (await this.#scheduleTables()).delete(scheduleId);
  }

  async claimFirings(scheduleId: string, claim: FiringClaim): Promise<FiringRecord[] | undefined> {
    return (await this.#scheduleTables()).claimFirings(scheduleId, claim);
  }

  async settleFiring(
    firingId: number,
    outcome: FiringOutcome,
    details?: { loopId?: string; reason?: string },
  ): Promise<void> {
    return (await this.#scheduleTables()).settleFiring(firingId, outcome, details);
  }

  async listFirings(scheduleId: string, limit: number): Promise<FiringRecord[]> {
    return (await this.#scheduleTables()).listFirings(scheduleId, limit);
  }

  async pendingFirings(): Promise<FiringRecord[]> {
    return (await this.#scheduleTables()).pendingFirings();
  }

  /**
   * The schedule tables' statements, prepared at the first schedule call. Their module (and its ~20
   * statements: ~0.5 ms to prepare, timed in-process) stays off the commands that never read a schedule.
   */
  #scheduleTables(): Promise<ScheduleTables> {
    this.#schedules ??= import("./sqlite-schedule-tables.ts").then(({ ScheduleTables }) => {
      try {
        return new ScheduleTables(this.#database, {
          transaction: (work) => this.#transaction(work),
          retrying: (work) => this.#retrying(work),
        });
      } catch (error) {
        this.#schedules = undefined;
        throw describeFailure(error, this.#path);
      }
    });
    return this.#schedules;
  }

  /** Closes the database file; closing twice is harmless. */
  async close(): Promise<void> {
    if (this.#database.isOpen) this.#database.close();
  }

  #requireLoop(loopId: string): void {
    if (!this.#statements.loopById.get(loopId)) throw new LoopNotFoundError(`no loop with id ${loopId}`);
  }

  /**
   * Runs `work` in a write transaction taken up front (`BEGIN IMMEDIATE`), so that what it reads
   * cannot change before it writes, even with other processes writing to the same file. With `sync:
   * false` its commit is not flushed to the disk (`synchronous = NORMAL` for that commit alone, set and
   * restored within one synchronous attempt, so no other transaction of this connection runs under it):
   * in WAL mode it still reaches the operating system, surviving the death of the process, and the next
   * synced commit's flush of the same WAL file carries it to the disk.
   */
  #transaction<T>(work: () => T, options: { sync: boolean } = { sync: true }): Promise<T> {
    return this.#retrying(() => {
      if (!options.sync) this.#database.exec("PRAGMA synchronous = NORMAL");
      try {
        this.#database.exec("BEGIN IMMEDIATE");
        try {
          const result = work();
          this.#database.exec("COMMIT");
          return result;
        } catch (error) {
          if (this.#database.isTransaction) this.#database.exec("ROLLBACK");
          throw error;
        }
      } finally {
        if (!options.sync) this.#restoreFlushing();
      }
    });
  }

  /**
   * The boot the store last reserved ids in, against this one: `other` after a power cut, a reboot or a
   * move to another machine (this process's first append reserves ids); `missing` for a store that never
   * recorded one (new, or from before this fact: nothing in it was ever deferred), which records this
   * boot without a reservation; `same` where the boot cannot be read (nothing is deferred there). Either
   * of the first two is written by a flushed append: no id is handed out unflushed before it is durable.
   */
  #recordedBoot(): "same" | "missing" | "other" {
    if (currentBoot() === "") return "same";
    const recorded = this.#statements.fact.get("boot") as { value: string } | undefined;
    if (recorded === undefined) return "missing";
    return recorded.value === currentBoot() ? "same" : "other";
  }

  /**
   * Back to flushing every commit after a deferred one. A transaction still open (its ROLLBACK failed)
   * is rolled back first: SQLite refuses to change the level inside one. A connection that cannot flush
   * again is closed rather than left writing unflushed: its next use fails loudly. Never throws, so
   * the error that got here is the one the caller sees.
   */
  #restoreFlushing(): void {
    try {
      if (this.#database.isTransaction) this.#database.exec("ROLLBACK");
      this.#database.exec("PRAGMA synchronous = FULL");
    } catch {
      this.#database.close();
    }
  }

  /**
   * Runs `work`, retrying with backoff while the database is busy (another process holds the lock),
   * up to the bound; SQLite failures become `StoreError` naming the file, anything else is rethrown.
   */
  async #retrying<T>(work: () => T): Promise<T> {
    const limitMs = Number(process.env.LOOPWRIGHT_STORE_BUSY_MS) || defaultBusyLimitMs;
    const deadline = Date.now() + limitMs;
    for (let attempt = 0; ; attempt++) {
      try {
        return work();
      } catch (error) {
        if (!isBusy(error)) throw describeFailure(error, this.#path);
        if (Date.now() >= deadline) {
          throw new StoreError(
            `${this.#path}: the database is locked by another process (still busy after ${(limitMs / 1000).toFixed(1)} s)`,
          );
        }
        // Loaded at the first busy wait: most commands never meet one.
        const { setTimeout: delay } = process.getBuiltinModule("node:timers/promises");
        await delay(Math.min(25 * 2 ** attempt, 500));
      }
    }
  }
}

/** Opens for reading and writing, in WAL mode, with the schema migrated; throws if the file cannot be written. */
function openWritable(path: string): DatabaseSync {
  const database = new DatabaseSync(path, {
    timeout: busyWaitPerAttemptMs,
    enableForeignKeyConstraints: true,
  });
  try {
    // Switching to WAL writes; a database already in WAL needs no write (and a read-only home none).
    const mode = database.prepare("PRAGMA journal_mode").get() as { journal_mode?: string } | undefined;
    if (mode?.journal_mode !== "wal") database.exec("PRAGMA journal_mode = WAL");
    database.exec("PRAGMA synchronous = FULL");
    migrate(database, path);
    return database;
  } catch (error) {
    database.close();
    throw error;
  }
}

/**
 * Opens a database that cannot be written (a read-only home): immutable, so SQLite needs neither its
 * lock files nor the WAL index, which it could not create there. The schema must be current.
 */
function openReadOnly(path: string): DatabaseSync {
  const database = new DatabaseSync(new URL(`${pathToFileURL(path).href}?immutable=1`), {
    readOnly: true,
    enableForeignKeyConstraints: true,
  });
  try {
    const version = currentVersion(database);
    if (version !== schemaVersion) {
      throw new StoreError(
        `${path}: cannot be written here, and its schema (version ${version}) is not the one this loopwright reads (${schemaVersion})`,
      );
    }
    return database;
  } catch (error) {
    database.close();
    throw error;
  }
}

function currentVersion(database: DatabaseSync): number {
  const table = database
    .prepare("SELECT name FROM sqlite_master WHERE type = 'table' AND name = 'schema_version'")
    .get();
  if (!table) return 0;
  const row = database.prepare("SELECT COALESCE(MAX(version), 0) AS version FROM schema_version").get();
  return Number(row?.version ?? 0);
}

/** The primary SQLite result code of an error from node:sqlite, if it is one. */
function primaryCode(error: unknown): number | undefined {
  const code = (error as { errcode?: unknown })?.errcode;
  return typeof code === "number" ? code & 0xff : undefined;
}

function isBusy(error: unknown): boolean {
  const code = primaryCode(error);
  return code === sqliteCode.busy || code === sqliteCode.locked;
}

function isUnwritable(error: unknown): boolean {
  const code = primaryCode(error);
  return code === sqliteCode.readOnly || code === sqliteCode.cantOpen || code === sqliteCode.perm;
}

/** A SQLite failure as a `StoreError` that names the database file; other errors unchanged. */
function describeFailure(error: unknown, path: string): unknown {
  const code = primaryCode(error);
  if (code === undefined) return error;
  const reason = (error as Error).message;
  switch (code) {
    case sqliteCode.notADatabase:
    case sqliteCode.corrupt:
      return new StoreError(
        `${path}: not a loopwright database, or corrupt (${reason}); move it aside to start afresh`,
      );
    case sqliteCode.busy:
    case sqliteCode.locked:
      return new StoreError(`${path}: the database is locked by another process (${reason})`);
    case sqliteCode.readOnly:
    case sqliteCode.cantOpen:
    case sqliteCode.perm:
      return new StoreError(`${path}: cannot write the database (${reason}); is the home folder read-only?`);
    case sqliteCode.full:
      return new StoreError(`${path}: the disk is full (${reason})`);
    case sqliteCode.ioError:
      return new StoreError(`${path}: input/output error (${reason})`);
    default:
      return new StoreError(`${path}: ${reason}`);
  }
}

/** The row's data when it is a JSON object, else why not (`bad JSON`, `data is not an object`). */
function parseObject(text: string): Record<string, unknown> | string {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return "bad JSON";
  }
  return value !== null && typeof value === "object" && !Array.isArray(value)
    ? (value as Record<string, unknown>)
    : "data is not an object";
}

function prepareStatements(database: DatabaseSync) {
  const prepare = (sql: string): StatementSync => database.prepare(sql);
  const loopColumns = "id, name, repo_root, spec_path, spec, created_at";
  const eventColumns = "id, loop_id, seq, type, version, at, data";
  return {
    insertLoop: prepare(`INSERT INTO loops (${loopColumns}) VALUES (?, ?, ?, ?, ?, ?)`),
    loopById: prepare(`SELECT ${loopColumns} FROM loops WHERE id = ?`),
    loopByName: prepare(`SELECT ${loopColumns} FROM loops WHERE repo_root = ? AND name = ?`),
    loopsByName: prepare(`SELECT ${loopColumns} FROM loops WHERE name = ?`),
    allLoops: prepare(`SELECT ${loopColumns} FROM loops ORDER BY created_at DESC, rowid DESC`),
    loopsInRepository: prepare(
      `SELECT ${loopColumns} FROM loops WHERE repo_root = ? ORDER BY created_at DESC, rowid DESC`,
    ),
    deleteLoop: prepare("DELETE FROM loops WHERE id = ?"),
    // sqlite_sequence has no row for `events` before its first insert: the row is made at 0 then moved.
    sequenceRow: prepare(
      `INSERT INTO sqlite_sequence (name, seq)
       SELECT 'events', COALESCE((SELECT MAX(id) FROM events), 0)
       WHERE NOT EXISTS (SELECT 1 FROM sqlite_sequence WHERE name = 'events')`,
    ),
    reserveIds: prepare(`UPDATE sqlite_sequence SET seq = seq + ? WHERE name = 'events'`),
    fact: prepare("SELECT value FROM store_facts WHERE name = ?"),
    recordFact: prepare(
      "INSERT INTO store_facts (name, value) VALUES (?, ?) ON CONFLICT (name) DO UPDATE SET value = excluded.value",
    ),
    recordFactIfMissing: prepare(
      "INSERT INTO store_facts (name, value) VALUES (?, ?) ON CONFLICT (name) DO NOTHING",
    ),
    insertEvent: prepare(
      `INSERT INTO events (loop_id, seq, type, version, at, data)
       SELECT ?, COALESCE(MAX(seq), 0) + 1, ?, ?, ?, ? FROM events WHERE loop_id = ?
       RETURNING id, seq`,
    ),
    eventsAfter: prepare(`SELECT ${eventColumns} FROM events WHERE loop_id = ? AND seq > ? ORDER BY seq`),
    allEventsAfterId: prepare(`SELECT ${eventColumns} FROM events WHERE id > ? ORDER BY id LIMIT ?`),
    loopEventsAfterId: prepare(
      `SELECT ${eventColumns} FROM events WHERE loop_id = ? AND id > ? ORDER BY id LIMIT ?`,
    ),
    // The highest id ever handed out, deleted rows included (sqlite_sequence), so that it never goes back.
    lastEventId: prepare("SELECT COALESCE((SELECT seq FROM sqlite_sequence WHERE name = 'events'), 0) AS id"),
    deleteEvents: prepare("DELETE FROM events WHERE loop_id = ?"),
    lockOf: prepare("SELECT run_id, pid, host, process_start FROM locks WHERE loop_id = ?"),
    upsertLock: prepare(
      `INSERT OR REPLACE INTO locks (loop_id, run_id, pid, host, process_start, acquired_at)
       VALUES (?, ?, ?, ?, ?, ?)`,
    ),
    releaseLock: prepare("DELETE FROM locks WHERE loop_id = ? AND run_id = ?"),
    deleteLock: prepare("DELETE FROM locks WHERE loop_id = ?"),
  };
}

/** Brings the schema up to `schemaVersion` in one write transaction, so concurrent openers agree. */
function migrate(database: DatabaseSync, path: string): void {
  // Reading the version needs no write lock: an up-to-date database opens even while another process writes.
  if (currentVersion(database) === schemaVersion) return;
  database.exec("BEGIN IMMEDIATE");
  try {
    database.exec(
      "CREATE TABLE IF NOT EXISTS schema_version (version INTEGER PRIMARY KEY, applied_at TEXT NOT NULL)",
    );
    const row = database.prepare("SELECT COALESCE(MAX(version), 0) AS version FROM schema_version").get();
    const current = Number(row?.version ?? 0);
    if (current > schemaVersion) {
      throw new UsageError(
        `${path} has schema version ${current}, newer than this loopwright knows (${schemaVersion}); upgrade loopwright`,
      );
    }
    const record = database.prepare("INSERT INTO schema_version (version, applied_at) VALUES (?, ?)");
    for (let version = current + 1; version <= schemaVersion; version++) {
      database.exec(migrations[version - 1]);
      record.run(version, new Date().toISOString());
    }
    database.exec("COMMIT");
  } catch (error) {
    if (database.isTransaction) database.exec("ROLLBACK");
    throw error;
  }
}

/** A loop whose stored spec is not valid JSON comes back with `spec: null` (its readers report it damaged). */
function toLoopRecord(row: LoopRow): LoopRecord {
  let spec: unknown = null;
  try {
    spec = JSON.parse(row.spec);
  } catch {
    // Left null: one damaged loop must not hide the others.
  }
  return {
    id: row.id,
    name: row.name,
    repoRoot: row.repo_root,
    specPath: row.spec_path,
    spec,
    createdAt: row.created_at,
  };
}

/** A row whose data is not a JSON object comes back with `damage` set and empty data. */
function toStoredEvent(row: EventRow): StoredEvent {
  const event = {
    id: row.id,
    loopId: row.loop_id,
    seq: row.seq,
    type: row.type,
    version: row.version,
    at: row.at,
  };
  const data = parseObject(row.data);
  return typeof data === "string" ? { ...event, data: {}, damage: data } : { ...event, data };
}

function toLockOwner(row: LockRow): LockOwner {
  return { runId: row.run_id, pid: row.pid, host: row.host, processStart: row.process_start };
}
