/**
 * The supervisor's view of every loop in the store: each loop's replayed state, brought up to date at
 * every tick by reading only the events appended since (by this process or any other).
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

export function createLoopWatch(store: Store): LoopWatch {
  const watched = new Map<string, { loop: LoopRecord; timeline: Timeline; providers: string[] }>();
  return {
    async refresh() {
      const loops = await store.listLoops();
      const present = new Set(loops.map((loop) => loop.id));
      for (const id of watched.keys()) if (!present.has(id)) watched.delete(id);
      const views: WatchedLoop[] = [];
      for (const loop of loops) {
        let entry = watched.get(loop.id);
        if (!entry) {
          if (loop.spec === null || typeof loop.spec !== "object") continue; // damaged: `ls` names it
          entry = { loop, timeline: openTimeline(store, loop), providers: providersOf(loop.spec as Spec) };
          watched.set(loop.id, entry);
        }
        await entry.timeline.sync();
        const state = entry.timeline.state();
        views.push({ loop: entry.loop, state, providers: entry.providers, runs: state.runIds.length });
      }
      return views;
    },
  };
}
