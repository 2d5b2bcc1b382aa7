/**
 * A lock file shared by concurrent hook processes: created with `wx` (atomic), removed when done. Hooks
 * hold it for the few milliseconds of a read-modify-write, never while a gate runs, so a lock older than
 * `staleMs` belongs to a hook that was killed and is taken over.
 */

import { closeSync, openSync, statSync, unlinkSync } from "../../files/node-fs.ts";

export interface FileLockOptions {
  /** Give up (throw) after waiting this long. Default 15 s. */
  timeoutMs?: number;
  /** A lock file older than this is taken over. Default 10 s. */
  staleMs?: number;
}

/** Runs `action` while holding the lock at `lockPath` (its folder must exist). Throws on timeout. */
export async function withFileLock<T>(
  lockPath: string,
  action: () => Promise<T> | T,
  options: FileLockOptions = {},
): Promise<T> {
  const timeoutMs = options.timeoutMs ?? 15_000;
  const staleMs = options.staleMs ?? 10_000;
  const started = Date.now();
  for (let attempt = 0; ; attempt++) {
    if (tryCreate(lockPath)) break;
    if (isStale(lockPath, staleMs)) {
      removeQuietly(lockPath);
      continue;
    }
    if (Date.now() - started > timeoutMs)
      throw new Error(`the hook state lock ${lockPath} stayed taken for ${timeoutMs / 1000} s`);
    // Short, jittered waits: holders release within milliseconds. node:timers/promises loads only
    // here, when the lock is taken: most hooks find it free.
    const { setTimeout: delay } = process.getBuiltinModule("node:timers/promises");
    await delay(1 + Math.random() * Math.min(20, 2 + attempt));
  }
  try {
    return await action();
  } finally {
    removeQuietly(lockPath);
  }
}

function tryCreate(lockPath: string): boolean {
  try {
    closeSync(openSync(lockPath, "wx"));
    return true;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "EEXIST") return false;
    throw error;
  }
}

function isStale(lockPath: string, staleMs: number): boolean {
  try {
    return Date.now() - statSync(lockPath).mtimeMs > staleMs;
  } catch {
    return false;
  }
}

function removeQuietly(path: string): void {
  try {
    unlinkSync(path);
  } catch {
    // Already gone (taken over as stale, or never created).
  }
}
