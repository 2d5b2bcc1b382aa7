/**
 * The typed payloads of the events a loop streamed (`run --json`), for tests that assert on them.
 */
import type { EventPayloads, EventType, LoopEvent } from "../../src/core/events.ts";

/** The payloads of every event of one type, in order. */
export function eventsOf<K extends EventType>(run: { events: LoopEvent[] }, type: K): EventPayloads[K][] {
  return run.events.filter((event) => event.type === type).map((event) => event.data as EventPayloads[K]);
}
