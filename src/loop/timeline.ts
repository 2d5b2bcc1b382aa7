/**
 * The controller's view of a loop's timeline: the replayed state, kept current by reading the events
 * appended since (by this process or another: `steer`, `pause`, `cancel`), and `append`, which makes
 * an event durable before the next step starts.
 */
import type { LoopRecord, Store, StoredEvent } from "../store/store.ts";
import { type EventPayloads, type EventType, eventSchemaVersion, type LoopEvent } from "./events.ts";
import type { Spec } from "./spec.ts";
import { apply, initialState, type LoopState } from "./state.ts";

export interface Timeline {
  state(): LoopState;
  /** Folds in every event appended since the last sync, in order. */
  sync(): Promise<void>;
  append<K extends EventType>(type: K, data: EventPayloads[K]): Promise<void>;
}

/**
 * Test hook: `LOOPWRIGHT_TEST_CRASH_AFTER_EVENT=N` kills this process with SIGKILL right after event N
 * is durable, to prove that a controller killed at any point can be resumed.
 */
const crashAfterEvent = Number(process.env.LOOPWRIGHT_TEST_CRASH_AFTER_EVENT ?? 0);

/** Call right after event `seq` is durable: the crash test hook above fires there. */
export function crashPoint(seq: number): void {
  if (crashAfterEvent > 0 && seq === crashAfterEvent) process.kill(process.pid, "SIGKILL");
}

export function openTimeline(
  store: Store,
  loop: LoopRecord,
  onEvent?: (event: LoopEvent, state: LoopState) => void,
): Timeline {
  let state = initialState(loop.spec as Spec);
  let lastSeq = 0;
  let queue: Promise<void> = Promise.resolve();
  const serialized = (work: () => Promise<void>) => {
    const next = queue.then(work);
    queue = next.catch(() => {});
    return next;
  };
  const fold = (events: StoredEvent[]) => {
    for (const stored of events) {
      if (stored.seq <= lastSeq) continue;
      const event = { type: stored.type, seq: stored.seq, at: stored.at, data: stored.data } as LoopEvent;
      state = apply(state, event);
      lastSeq = stored.seq;
      onEvent?.(event, state);
    }
  };
  const sync = () => serialized(async () => fold(await store.readEvents(loop.id, lastSeq)));
  return {
    state: () => state,
    sync,
    append: (type, data) =>
      serialized(async () => {
        const stored = await store.appendEvent(
          loop.id,
          type,
          data as Record<string, unknown>,
          eventSchemaVersion,
        );
        fold(await store.readEvents(loop.id, lastSeq));
        crashPoint(stored.seq);
      }),
  };
}

/** Reads a loop's events and replays them, for commands that only look (show, report, ls). */
export async function readState(
  store: Store,
  loop: LoopRecord,
): Promise<{ state: LoopState; events: LoopEvent[] }> {
  const stored = await store.readEvents(loop.id);
  const events = stored.map(
    (event) => ({ type: event.type, seq: event.seq, at: event.at, data: event.data }) as LoopEvent,
  );
  return { state: events.reduce(apply, initialState(loop.spec as Spec)), events };
}
