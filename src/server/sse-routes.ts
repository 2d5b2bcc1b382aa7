/**
 * Live timeline events as Server-Sent Events: `GET /api/events` (every loop) and
 * `GET /api/loops/:id/events` (one loop). Each message's `id` is the event's global id and its data the
 * event as JSON (redacted); a client that reconnects with `Last-Event-ID` (or `?after=`) receives every
 * event after that id exactly once. A comment line every `heartbeatMs` keeps proxies and clients awake.
 */
import type { Context } from "hono";
import { streamSSE } from "hono/streaming";
import { type AppContext, findLoop } from "../app/app-context.ts";
import { timelineEventSchema } from "../app/schemas/timeline-schemas.ts";
import type { Redact } from "../core/redact.ts";
import { FieldError } from "../errors.ts";
import type { StoredEvent } from "../store/store.ts";
import { loopParametersSchema, streamQuerySchema } from "./api-schemas.ts";
import type { EventFeed } from "./event-feed.ts";
import { type ApiRoute, defineRoute } from "./route-table.ts";

export interface StreamDependencies {
  context: AppContext;
  feed: EventFeed;
  redact: Redact;
  /** Period of the heartbeat comments, in ms (default 15,000). */
  heartbeatMs: number;
  /** Aborted when the server closes: every stream ends. */
  closing: AbortSignal;
}

export function sseRoutes(dependencies: StreamDependencies): ApiRoute[] {
  const { context } = dependencies;
  const description = "one message per event: `id` the global event id, `data` the event as JSON";
  return [
    defineRoute({
      method: "get",
      path: "/api/events",
      summary:
        "Every loop's events as they are appended (Server-Sent Events; resume with Last-Event-ID or ?after=)",
      query: streamQuerySchema,
      answer: { kind: "stream", schema: timelineEventSchema, description },
      handle: async ({ query, context: request }) => stream(request, dependencies, query.after),
    }),
    defineRoute({
      method: "get",
      path: "/api/loops/:id/events",
      summary:
        "One loop's events as they are appended (Server-Sent Events; resume with Last-Event-ID or ?after=)",
      params: loopParametersSchema,
      query: streamQuerySchema,
      answer: { kind: "stream", schema: timelineEventSchema, description },
      handle: async ({ params, query, context: request }) => {
        const loop = await findLoop(context, params.id);
        return stream(request, dependencies, query.after, loop.id);
      },
    }),
  ];
}

/** Where a stream starts: after Last-Event-ID, else after `?after=`, else after the last event stored now. */
async function startingId(request: Context, feed: EventFeed, after: number | undefined): Promise<number> {
  const header = request.req.header("last-event-id");
  if (header !== undefined && header.trim() !== "") {
    if (!/^\d+$/.test(header.trim()))
      throw new FieldError("Last-Event-ID", `not an event id: '${header.slice(0, 40)}'`);
    return Number(header.trim());
  }
  return after ?? (await feed.lastId());
}

async function stream(
  request: Context,
  { feed, redact, heartbeatMs, closing }: StreamDependencies,
  after: number | undefined,
  loopId?: string,
): Promise<Response> {
  const from = await startingId(request, feed, after);
  return streamSSE(request, async (sse) => {
    // Writes are chained so messages leave in id order even when a write waits for the socket.
    // A failed write (the client left) stops the writing; the abort then ends the stream.
    let writing: Promise<void> = Promise.resolve();
    let failed = false;
    const enqueue = (write: () => Promise<unknown>) => {
      writing = writing.then(async () => {
        if (failed) return;
        try {
          await write();
        } catch {
          failed = true;
        }
      });
    };
    enqueue(() => sse.write(": connected\n\n"));
    const send = (event: StoredEvent) => {
      const message = {
        id: event.id,
        loopId: event.loopId,
        seq: event.seq,
        type: event.type,
        at: event.at,
        data: event.data,
        ...(event.damage ? { damage: event.damage } : {}),
      };
      enqueue(() => sse.writeSSE({ id: String(event.id), data: redact(JSON.stringify(message)) }));
    };
    const unsubscribe = feed.subscribe(from, send, loopId);
    const heartbeat = setInterval(() => {
      enqueue(() => sse.write(": heartbeat\n\n"));
    }, heartbeatMs);
    await new Promise<void>((resolve) => {
      sse.onAbort(() => resolve());
      if (closing.aborted) resolve();
      closing.addEventListener("abort", () => resolve(), { once: true });
    });
    clearInterval(heartbeat);
    unsubscribe();
    await writing;
  });
}
