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

/** An event as stored: a per-loop sequence number, a type (`noun_verb`), a schema version and data. */
export interface StoredEvent {
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

export interface Store {
  /** Registers a loop. Throws `UsageError` when the repository already has a loop of that name. */
  createLoop(loop: Omit<LoopRecord, "createdAt">): Promise<LoopRecord>;
  /** Finds a loop by id, or by name within `repoRoot` (names are only unique per repository). */
  findLoop(reference: string, repoRoot?: string): Promise<LoopRecord | undefined>;
  /** Every loop, newest first; only those of `repoRoot` when given. */
  listLoops(repoRoot?: string): Promise<LoopRecord[]>;
  /** Removes a loop, its timeline and its lock. */
  deleteLoop(loopId: string): Promise<void>;
  /** Appends one event and returns it with its sequence number; durable when the promise resolves. */
  appendEvent(
    loopId: string,
    type: string,
    data: Record<string, unknown>,
    version?: number,
  ): Promise<StoredEvent>;
  /** The loop's events in order, only those after `afterSeq` when given. */
  readEvents(loopId: string, afterSeq?: number): Promise<StoredEvent[]>;
  /**
   * Takes the loop's run lock. A lock whose holder is dead (same host, process gone or pid reused)
   * is taken over; a live holder makes this return `{acquired: false, holder}`.
   */
  acquireLock(loopId: string, owner: LockOwner): Promise<LockResult>;
  /** Releases the lock if `runId` holds it. */
  releaseLock(loopId: string, runId: string): Promise<void>;
  /** The current holder when it is alive, else undefined. */
  lockHolder(loopId: string): Promise<LockOwner | undefined>;
  close(): Promise<void>;
}
