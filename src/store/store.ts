/**
 * The store: loops and their append-only timelines. Asynchronous on purpose: the embedded SQLite
 * store answers at once, a Postgres store (scale-out) implements the same interface over the network.
 */

import type { LockOwner } from "../core/lock-owner.ts";

/** One loop as registered: its identity, where it lives, and the spec snapshot it was started with. */
export interface LoopRecord {
  id: string;
  name: string;
  /** Absolute path of the repository's main worktree; loop names are unique per repository. */
  repoRoot: string;
  /** The spec file the loop was started from (informational: resume never re-reads it). */
  specPath: string;
  /** The resolved spec as JSON, snapshotted at creation. Steering lives in the timeline, not here. */
  spec: unknown;
  createdAt: string;
}

/**
 * An event as stored: a global id, a per-loop sequence number, a type (`noun_verb`), a schema version
 * and data.
 */
export interface StoredEvent {
  /**
   * Global across every loop of the store: strictly increasing in the order events became durable,
   * never reused (not even after the loop is deleted). Live feeds resume from it (SSE `Last-Event-ID`).
   */
  id: number;
  loopId: string;
  seq: number;
  type: string;
  version: number;
  at: string;
  data: Record<string, unknown>;
  /** Set when the stored row could not be read (e.g. `bad JSON`); `data` is then empty. */
  damage?: string;
}

export type LockResult = { acquired: true } | { acquired: false; holder: LockOwner };

/**
 * A schedule as registered by `run --detach` of a spec with `schedule:`: one per name and repository.
 * The store keeps the spec snapshot and the rule as given; the service decides what they mean.
 */
export interface ScheduleRecord {
  id: string;
  name: string;
  /** Absolute path of the repository's main worktree; schedule names are unique per repository. */
  repoRoot: string;
  /** The spec file it was registered from (informational: firings never re-read it). */
  specPath: string;
  /** The resolved spec snapshot (a `ParsedSpec`), as JSON; null when the stored row cannot be read. */
  spec: unknown;
  /** The schedule rule (`{cron, timezone}` or `{every}` in ms), as JSON; null when unreadable. */
  rule: unknown;
  createdAt: string;
  /** When the spec and rule were last replaced by a new registration of the same name. */
  replacedAt?: string;
  /** The last firing time already decided (fired, skipped or missed), or when the rule was (re)registered. */
  consideredUntil: string;
  /** The next firing time after `consideredUntil`, as the service computed it; undefined: never again. */
  nextFiringAt?: string;
}

/**
 * `pending`: claimed, its loop not created yet (a crash there is finished at the next tick);
 * `started`: its loop was created and queued; `skipped-active`: the previous run was still queued or
 * running; `missed`: the service was not up (or not ticking) at that time; `failed`: the loop could not
 * be created (`reason` says why).
 */
export type FiringOutcome = "pending" | "started" | "skipped-active" | "missed" | "failed";

export interface FiringRecord {
  id: number;
  scheduleId: string;
  /** The firing time the rule gave (ISO, UTC). */
  scheduledFor: string;
  outcome: FiringOutcome;
  loopId?: string;
  reason?: string;
  /** When the outcome was last written. */
  recordedAt: string;
}

export type NewFiring = Pick<FiringRecord, "scheduledFor" | "outcome" | "loopId" | "reason">;

/** Firings decided together, and where the schedule's decisions stand after them (see `claimFirings`). */
export interface FiringClaim {
  expectedConsideredUntil: string;
  consideredUntil: string;
  nextFiringAt?: string;
  firings: NewFiring[];
}

/** How many firings the store keeps per schedule; older ones are dropped as new ones are recorded. */
export const keptFiringsPerSchedule = 200;

/** How an append reaches the disk. */
export interface AppendOptions {
  /**
   * Skip the flush to the disk: the event survives the death of the process (and is seen by every
   * reader at once) but reaches the disk with the next append or write that is synced, so a power cut
   * before then may lose it (and every deferred event after the last synced one, never one before it).
   * For events a resume can do without: the step they record is redone. Default false.
   */
  deferSync?: boolean;
}

export interface Store {
  /** Registers a loop. Throws `UsageError` when the repository already has a loop of that name. */
  createLoop(loop: Omit<LoopRecord, "createdAt">): Promise<LoopRecord>;
  /**
   * `createLoop`, then `appendEvent(loop.id, event...)` as the loop's first event, in ONE transaction:
   * one flush to the disk where two were made, and no loop is ever seen without that event.
   */
  createLoopWithEvent(
    loop: Omit<LoopRecord, "createdAt">,
    event: { type: string; data: Record<string, unknown>; version?: number },
  ): Promise<{ loop: LoopRecord; event: StoredEvent }>;
  /** Finds a loop by id, or by name within `repoRoot` (names are only unique per repository). */
  findLoop(reference: string, repoRoot?: string): Promise<LoopRecord | undefined>;
  /** Every loop, newest first; only those of `repoRoot` when given. */
  listLoops(repoRoot?: string): Promise<LoopRecord[]>;
  /** Removes a loop, its timeline and its lock. */
  deleteLoop(loopId: string): Promise<void>;
  /**
   * Appends one event and returns it with its sequence number; durable when the promise resolves: it
   * survives the death of the process, and (unless `options.deferSync`) a power cut or kernel crash.
   */
  appendEvent(
    loopId: string,
    type: string,
    data: Record<string, unknown>,
    version?: number,
    options?: AppendOptions,
  ): Promise<StoredEvent>;
  /** The loop's events in order, only those after `afterSeq` when given. */
  readEvents(loopId: string, afterSeq?: number): Promise<StoredEvent[]>;
  /**
   * Up to `limit` events (at most 10,000) with a global id above `afterId`, in id order, across every
   * loop or only `loopId`'s. Because ids follow commit order, a reader that resumes from the last id it
   * saw misses nothing and sees nothing twice, whichever process appended.
   */
  readEventsAfter(afterId: number, limit: number, loopId?: string): Promise<StoredEvent[]>;
  /** The highest event id ever handed out (0 for none), deleted loops' events included. */
  lastEventId(): Promise<number>;
  /**
   * Takes the loop's run lock. A lock whose holder is dead (same host, process gone or pid reused)
   * is taken over; a live holder makes this return `{acquired: false, holder}`.
   */
  acquireLock(loopId: string, owner: LockOwner): Promise<LockResult>;
  /** Releases the lock if `runId` holds it. */
  releaseLock(loopId: string, runId: string): Promise<void>;
  /** The current holder when it is alive, else undefined. */
  lockHolder(loopId: string): Promise<LockOwner | undefined>;
  /**
   * Registers a schedule at time `at` (its `createdAt`), or replaces the spec, rule, spec path,
   * `consideredUntil` and `nextFiringAt` of the one of that name in that repository, setting its
   * `replacedAt` to `at` and keeping its id, creation time and firings; `replaced` is the old record.
   */
  saveSchedule(
    schedule: Omit<ScheduleRecord, "id" | "createdAt" | "replacedAt">,
    at: string,
  ): Promise<{ schedule: ScheduleRecord; replaced?: ScheduleRecord }>;
  /** Finds a schedule by id, or by name within `repoRoot`; without it, only a name unique across repositories. */
  findSchedule(reference: string, repoRoot?: string): Promise<ScheduleRecord | undefined>;
  /** Every schedule, by repository then name; only those of `repoRoot` when given. */
  listSchedules(repoRoot?: string): Promise<ScheduleRecord[]>;
  /** The schedules whose `nextFiringAt` is at or before `now` (ISO): one indexed query, cheap every tick. */
  dueSchedules(now: string): Promise<ScheduleRecord[]>;
  /** Removes a schedule and its firings (the loops it started stay). */
  deleteSchedule(scheduleId: string): Promise<void>;
  /**
   * Records decided firings and moves the schedule's `consideredUntil` and `nextFiringAt`, atomically and
   * only if `consideredUntil` is still `expectedConsideredUntil` (else another process decided them first:
   * returns undefined, nothing written). A firing time already recorded is not recorded twice.
   */
  claimFirings(scheduleId: string, claim: FiringClaim): Promise<FiringRecord[] | undefined>;
  /** Sets a firing's outcome (and loop id or reason); `recordedAt` becomes now. */
  settleFiring(
    firingId: number,
    outcome: FiringOutcome,
    details?: { loopId?: string; reason?: string },
  ): Promise<void>;
  /** A schedule's firings, newest firing time first, at most `limit`. */
  listFirings(scheduleId: string, limit: number): Promise<FiringRecord[]>;
  /** Firings of every schedule still `pending` (a process died between claiming and starting them). */
  pendingFirings(): Promise<FiringRecord[]>;
  close(): Promise<void>;
}
