/**
 * The supervisor's view of every loop in the store: each loop's replayed state, kept up to date by
 * reading the store's global event feed (`readEventsAfter`), so a tick costs one query however many
 * loops there are, and only the loops that changed are brought up to date.
 */
import type { Spec } from "../core/spec.ts";
import type { LoopState } from "../loop/state.ts";
import { openTimeline, type Timeline } from "../loop/timeline.ts";
import type { LoopRecord, Store } from "../store/store.ts";
import { providersOf } from "./providers.ts";

/** One loop as the supervisor sees it. */
export interface WatchedLoop {
  loop: LoopRecord;
  state: LoopState;
  /** The providers its engines call (see `providersOf`). */
  providers: string[];
  /** How many runs it has had (`run_started` events). */
  runs: number;
}

export interface LoopWatch {
  /** Every loop of the store, each replayed up to its last event; loops removed from the store drop out. */
  refresh(): Promise<WatchedLoop[]>;
}

/** Events read per query of the feed. */
const pageSize = 1000;

/** How often the whole list of loops is read again, to notice removed loops (which leave no event). */
const relistMs = 2000;

export function createLoopWatch(store: Store): LoopWatch {
  const watched = new Map<string, { loop: LoopRecord; timeline: Timeline; providers: string[] }>();
  let lastId = -1;
  let listedAt = 0;

  const watch = async (loop: LoopRecord) => {
    if (loop.spec === null || typeof loop.spec !== "object") return; // damaged: `ls` names it
    const entry = { loop, timeline: openTimeline(store, loop), providers: providersOf(loop.spec as Spec) };
    await entry.timeline.sync();
    watched.set(loop.id, entry);
  };

  /** Reads the whole list: new loops are replayed from the start, removed ones dropped. */
  const relist = async () => {
    const loops = await store.listLoops();
    const present = new Set(loops.map((loop) => loop.id));
    for (const id of watched.keys()) if (!present.has(id)) watched.delete(id);
    for (const loop of loops) if (!watched.has(loop.id)) await watch(loop);
    listedAt = Date.now();
  };

  /** Folds the events appended since the last read into the loops they belong to. */
  const follow = async () => {
    const changed = new Set<string>();
    for (;;) {
      const events = await store.readEventsAfter(lastId, pageSize);
      for (const event of events) changed.add(event.loopId);
      lastId = events.at(-1)?.id ?? lastId;
      if (events.length < pageSize) break;
    }
    for (const loopId of changed) {
      const entry = watched.get(loopId);
      if (entry) await entry.timeline.sync();
      else {
        const loop = await store.findLoop(loopId);
        if (loop) await watch(loop);
      }
    }
  };

  return {
    async refresh() {
      if (lastId < 0) {
        // The feed's position first: what is appended while the loops are replayed is read again, harmlessly.
        lastId = await store.lastEventId();
        await relist();
      } else {
        await follow();
        if (Date.now() - listedAt >= relistMs) await relist();
      }
      return [...watched.values()]
        .sort((a, b) =>
          a.loop.createdAt < b.loop.createdAt ? 1 : a.loop.createdAt > b.loop.createdAt ? -1 : 0,
        )
        .map(({ loop, timeline, providers }) => {
          const state = timeline.state();
          return { loop, state, providers, runs: state.runIds.length };
        });
    },
  };
}
