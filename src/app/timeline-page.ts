/**
 * A loop's timeline page by page, for the glass box and clients catching up: every stored event
 * (owner actions with their `by`), damaged rows marked, never the whole timeline at once.
 */
import type { StoredEvent } from "../store/store.ts";
import { type AppContext, findLoop } from "./app-context.ts";
import { parseRequest } from "./parse-request.ts";
import {
  type TimelineEvent,
  type TimelinePage,
  type TimelinePageRequest,
  timelinePageRequestSchema,
} from "./schemas/timeline-schemas.ts";

/**
 * The events after the cursor `after` (0: from the start), at most `limit` (default 200, at most 1000).
 * The cursor is the event's global `id` (strictly increasing across loops, never reused), the same id
 * the live event streams send, so a page and a stream join exactly.
 * Throws `LoopNotFoundError`, or `FieldError` on `after` or `limit`.
 */
export async function readTimelinePage(
  context: AppContext,
  reference: string,
  request: TimelinePageRequest = {},
): Promise<TimelinePage> {
  const { after, limit } = parseRequest(timelinePageRequestSchema, request);
  const loop = await findLoop(context, reference);
  const stored = await context.store.readEventsAfter(after, limit + 1, loop.id);
  const events = stored.slice(0, limit).map(toTimelineEvent);
  return {
    loopId: loop.id,
    events,
    nextAfter: events.at(-1)?.id ?? after,
    hasMore: stored.length > limit,
  };
}

function toTimelineEvent(event: StoredEvent): TimelineEvent {
  return {
    id: event.id,
    seq: event.seq,
    loopId: event.loopId,
    type: event.type,
    at: event.at,
    data: event.data,
    ...(event.damage ? { damage: event.damage } : {}),
  };
}
