/**
 * The controller's view of a loop's timeline: the replayed state, kept current by reading the events
 * appended since (by this process or another: `steer`, `pause`, `cancel`), and `append`, which makes
 * an event durable before the next step starts (flushed to the disk, or carried there by the next
 * flushed event: see event-sync.ts).
 */

import { type EventPayloads, type EventType, eventSchemaVersion, type LoopEvent } from "../core/events.ts";
import { isKnownEventType } from "../core/known-events.ts";
import type { Spec } from "../core/spec.ts";
import type { LoopRecord, Store, StoredEvent } from "../store/store.ts";
import { defersSync } from "./event-sync.ts";
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
      lastSeq = stored.seq;
      const folded = foldOne(state, stored);
      if (!folded.ok) continue;
      state = folded.state;
      onEvent?.(folded.event, state);
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
          { deferSync: defersSync(type) },
        );
        // The event right after the last one folded (seq counts a loop's events without a gap) is folded as
        // the store returned it; after events another process appended meanwhile, all are read, in order.
        // (Those appended after it are folded by the next sync, before the next step is decided.)
        fold(stored.seq === lastSeq + 1 ? [stored] : await store.readEvents(loop.id, lastSeq));
        crashPoint(stored.seq);
      }),
  };
}

/** An event row that could not be folded into the state, and why (`bad JSON`, `unknown type x`, ...). */
export interface DamagedEvent {
  seq: number;
  reason: string;
}

/** A loop's timeline replayed: the state, the readable events, the damaged rows, the last seq read. */
export interface ReplayedLoop {
  state: LoopState;
  events: LoopEvent[];
  damaged: DamagedEvent[];
  lastSeq: number;
}

/**
 * Reads a loop's events and replays them, for commands that only look (show, report, ls). A damaged
 * row is skipped and listed in `damaged`, so one bad row never hides the rest of the loop, or other loops.
 * With `since` (an earlier replay of the same loop), only the events after it are read and folded on.
 */
export async function readState(store: Store, loop: LoopRecord, since?: ReplayedLoop): Promise<ReplayedLoop> {
  if (loop.spec === null || typeof loop.spec !== "object") {
    throw new Error(`loop ${loop.name} (${loop.id}) has no readable spec snapshot`);
  }
  let state = since?.state ?? initialState(loop.spec as Spec);
  const events: LoopEvent[] = since ? [...since.events] : [];
  const damaged: DamagedEvent[] = since ? [...since.damaged] : [];
  let lastSeq = since?.lastSeq ?? 0;
  for (const stored of await store.readEvents(loop.id, lastSeq)) {
    lastSeq = Math.max(lastSeq, stored.seq);
    const folded = foldOne(state, stored);
    if (!folded.ok) {
      damaged.push({ seq: stored.seq, reason: folded.reason });
      continue;
    }
    state = folded.state;
    events.push(folded.event);
  }
  return { state, events, damaged, lastSeq };
}

/** One line naming a loop's damaged rows, for stderr: `loop x (id): 2 damaged event rows skipped (...)`. */
export function describeDamage(loop: Pick<LoopRecord, "name" | "id">, damaged: DamagedEvent[]): string {
  const rows = damaged.length === 1 ? "1 damaged event row" : `${damaged.length} damaged event rows`;
  const listed = damaged
    .slice(0, 5)
    .map((entry) => `seq ${entry.seq}: ${entry.reason}`)
    .join("; ");
  const more = damaged.length > 5 ? "; ..." : "";
  return `loop ${loop.name} (${loop.id}): ${rows} skipped (${listed}${more})`;
}

type Folded = { ok: true; state: LoopState; event: LoopEvent } | { ok: false; reason: string };

/** Folds one stored event; a row that is damaged, of an unknown type or of an unreadable shape is refused. */
function foldOne(state: LoopState, stored: StoredEvent): Folded {
  if (!isKnownEventType(stored.type))
    return { ok: false, reason: `unknown type ${stored.type.slice(0, 40)}` };
  if (stored.damage) return { ok: false, reason: stored.damage };
  const event = { type: stored.type, seq: stored.seq, at: stored.at, data: stored.data } as LoopEvent;
  try {
    return { ok: true, state: apply(state, event), event };
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    return { ok: false, reason: `unreadable ${stored.type}: ${message.split("\n")[0].slice(0, 120)}` };
  }
}
