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
 * The cursor is the event's `id`. Until the store numbers events globally it is the per-loop `seq`; a
 * client only ever passes back an `id` it was given, so the switch changes no caller.
 * Throws `LoopNotFoundError`, or `FieldError` on `after` or `limit`.
 */
export async function readTimelinePage(
  context: AppContext,
  reference: string,
  request: TimelinePageRequest = {},
): Promise<TimelinePage> {
  const { after, limit } = parseRequest(timelinePageRequestSchema, request);
  const loop = await findLoop(context, reference);
  const stored = await context.store.readEvents(loop.id, after);
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
    id: event.seq,
    seq: event.seq,
    loopId: event.loopId,
    type: event.type,
    at: event.at,
    data: event.data,
    ...(event.damage ? { damage: event.damage } : {}),
  };
}
