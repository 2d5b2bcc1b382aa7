/**
 * What every application function takes: the store, the state home, and the repository in which loop
 * names resolve first. The CLI builds it from the current directory, the HTTP API from the service.
 */

import type { LoopEvent } from "../core/events.ts";
import { LoopNotFoundError } from "../errors.ts";
import type { LoopState } from "../loop/state.ts";
import { type DamagedEvent, type ReplayedLoop, readState } from "../loop/timeline.ts";
import type { LoopRecord, Store } from "../store/store.ts";
import type { LoopCache } from "./loop-cache.ts";

export interface AppContext {
  store: Store;
  home: string;
  /** Loop names resolve in this repository first (names are unique per repository only); ids anywhere. */
  repoRoot?: string;
  /** A long-lived process passes one (`createLoopCache()`): reads then fold only new events. */
  cache?: LoopCache;
}

/** Finds a loop by id, or by name (in `context.repoRoot` first). Throws `LoopNotFoundError`. */
export async function findLoop(context: AppContext, reference: string): Promise<LoopRecord> {
  const { store, repoRoot } = context;
  const loop = (await store.findLoop(reference, repoRoot)) ?? (await store.findLoop(reference));
  if (!loop) {
    const where = repoRoot ? ` in ${repoRoot}` : "";
    throw new LoopNotFoundError(`no loop named or with id '${reference}'${where} (see loopwright ls --all)`);
  }
  return loop;
}

/** A loop with its replayed state, its readable events, and the rows that could not be read. */
export interface ReadLoop {
  loop: LoopRecord;
  state: LoopState;
  events: LoopEvent[];
  damaged: DamagedEvent[];
}

/** `findLoop`, then its timeline replayed. */
export async function readLoop(context: AppContext, reference: string): Promise<ReadLoop> {
  const loop = await findLoop(context, reference);
  const { state, events, damaged } = await replay(context, loop);
  return { loop, state, events, damaged };
}

/** The loop's timeline replayed, through the context's cache when it has one. */
export function replay(context: AppContext, loop: LoopRecord): Promise<ReplayedLoop> {
  return context.cache ? context.cache.read(context.store, loop) : readState(context.store, loop);
}
