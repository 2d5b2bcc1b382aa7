/**
 * Replayed timelines kept between requests by a long-lived process (the service): a read folds only the
 * events appended since the last one, so the loops page of a store with thousands of iterations does not
 * replay them all on every request. Replays are immutable values; concurrent reads are safe.
 */
import { type ReplayedLoop, readState } from "../loop/timeline.ts";
import type { LoopRecord, Store } from "../store/store.ts";

export interface LoopCache {
  /** The loop replayed up to its latest event (throws as `readState` does for an unreadable spec). */
  read(store: Store, loop: LoopRecord): Promise<ReplayedLoop>;
  /** Forgets loops not in `liveIds` (deleted ones). */
  keepOnly(liveIds: Set<string>): void;
}

export function createLoopCache(): LoopCache {
  const entries = new Map<string, { createdAt: string; replayed: ReplayedLoop }>();
  /**
   * Whole replays under way, per loop: a reader that finds nothing kept while one runs waits for it and
   * then reads on from it (only what was appended since), instead of replaying the whole timeline again
   * (twenty clients opening the loops page of a freshly started service would each replay every loop).
   * It still sees every event appended before it asked: its own read follows the shared one.
   */
  const wholeReplays = new Map<string, Promise<unknown>>();
  const read = async (store: Store, loop: LoopRecord): Promise<ReplayedLoop> => {
    const cached = entries.get(loop.id);
    const since = cached?.createdAt === loop.createdAt ? cached.replayed : undefined;
    if (since === undefined) {
      const running = wholeReplays.get(loop.id);
      if (running) {
        await running.catch(() => {});
        if (entries.get(loop.id)?.createdAt === loop.createdAt) return read(store, loop);
      }
    }
    const replaying = readState(store, loop, since);
    if (since === undefined && !wholeReplays.has(loop.id)) {
      wholeReplays.set(loop.id, replaying);
      const forget = () => {
        if (wholeReplays.get(loop.id) === replaying) wholeReplays.delete(loop.id);
      };
      replaying.then(forget, forget);
    }
    const replayed = await replaying;
    const latest = entries.get(loop.id);
    // A slower concurrent read must not put an older replay back.
    if (!latest || latest.createdAt !== loop.createdAt || latest.replayed.lastSeq <= replayed.lastSeq)
      entries.set(loop.id, { createdAt: loop.createdAt, replayed });
    return replayed;
  };
  return {
    read,
    keepOnly(liveIds) {
      for (const id of entries.keys()) if (!liveIds.has(id)) entries.delete(id);
    },
  };
}
