/** Schemas of a loop's timeline read page by page. */
import { z } from "zod";

/** One stored event: `id` is the paging cursor; `by` in `data` names who did an owner action. */
export const timelineEventSchema = z.object({
  id: z.number().describe("the store's global event id: the cursor to page from (pass it as `after`)"),
  seq: z.number().describe("the event's number within its loop"),
  loopId: z.string(),
  type: z.string().describe("noun_verb, e.g. gate_ended"),
  at: z.string(),
  data: z.record(z.string(), z.unknown()),
  /** Set when the stored row could not be read; `data` is then empty. */
  damage: z.string().optional(),
});

/** The query of a timeline page: events after the cursor `after` (0: from the start), at most `limit`. */
export const timelinePageRequestSchema = z
  .object({
    after: z.coerce.number().int().nonnegative().default(0),
    limit: z.coerce.number().int().min(1).max(1000).default(200),
  })
  .strict();

/** A page of events in order; `hasMore` when more events follow `nextAfter` already. */
export const timelinePageSchema = z.object({
  loopId: z.string(),
  events: z.array(timelineEventSchema),
  /** The cursor of the next page: the last event's `id`, or `after` unchanged on an empty page. */
  nextAfter: z.number(),
  hasMore: z.boolean(),
});

export type TimelineEvent = z.infer<typeof timelineEventSchema>;
export type TimelinePage = z.infer<typeof timelinePageSchema>;
export type TimelinePageRequest = z.input<typeof timelinePageRequestSchema>;
