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
  return {
    async read(store, loop) {
      const cached = entries.get(loop.id);
      const since = cached?.createdAt === loop.createdAt ? cached.replayed : undefined;
      const replayed = await readState(store, loop, since);
      const latest = entries.get(loop.id);
      // A slower concurrent read must not put an older replay back.
      if (!latest || latest.replayed.lastSeq <= replayed.lastSeq)
        entries.set(loop.id, { createdAt: loop.createdAt, replayed });
      return replayed;
    },
    keepOnly(liveIds) {
      for (const id of entries.keys()) if (!liveIds.has(id)) entries.delete(id);
    },
  };
}
