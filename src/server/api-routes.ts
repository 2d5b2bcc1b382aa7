/**
 * The JSON API's routes over the loop operations: reading loops, their timelines, briefs, diffs, gate
 * logs and reports, and the owner's actions. Each route's schemas document it (see `openapi.ts`).
 */
import type { Context } from "hono";
import type { Redact } from "../gates/redact.ts";
import { homeLayout } from "../paths.ts";
import type { AccessGuard } from "./access-guard.ts";
import {
  actionAnswerSchema,
  deletedSchema,
  diffSchema,
  emptyBodySchema,
  gateLogParametersSchema,
  gateLogQuerySchema,
  iterationParametersSchema,
  iterationsSchema,
  loopListSchema,
  loopParametersSchema,
  objectSchema,
  sessionSchema,
  steerBodySchema,
  submitBodySchema,
  timelinePageSchema,
  timelineQuerySchema,
} from "./api-schemas.ts";
import type { EventFeed } from "./event-feed.ts";
import { readLog, requestedRange } from "./log-range.ts";
import * as operations from "./loop-operations.ts";
import { type ApiRoute, defineRoute } from "./route-table.ts";
import { submitFromBody } from "./submit-route.ts";

export interface ApiRouteDependencies {
  context: operations.OperationsContext;
  guard: AccessGuard;
  feed: EventFeed;
  redact: Redact;
}

/** Every JSON route of the API (the event streams are in `sse-routes.ts`). */
export function apiRoutes(dependencies: ApiRouteDependencies): ApiRoute[] {
  const { context, guard, feed, redact } = dependencies;
  /** An action's answer, after nudging the live feed so its event streams out at once. */
  const acted = <T>(answer: T): T => {
    feed.nudge();
    return answer;
  };
  return [
    defineRoute({
      method: "get",
      path: "/api/session",
      summary: "The secret to send with every action (loopback), and the actor actions are recorded as",
      answer: { kind: "json", status: 200, schema: sessionSchema, description: "the session" },
      handle: async () => ({
        secret: guard.secret,
        actor: guard.actor(),
        tokenRequired: guard.tokenRequired,
      }),
    }),
    defineRoute({
      method: "get",
      path: "/api/loops",
      summary: "Every loop with its display status, queue position and cost",
      answer: { kind: "json", status: 200, schema: loopListSchema, description: "the loops, newest first" },
      handle: () => operations.listLoops(context),
    }),
    defineRoute({
      method: "post",
      path: "/api/loops",
      summary: "Submits a new loop from a spec's text: validated as `run` does, then queued",
      body: submitBodySchema,
      answer: { kind: "json", status: 201, schema: objectSchema, description: "the queued loop" },
      handle: async ({ body }) => acted(await submitFromBody(context, body, guard.actor())),
    }),
    defineRoute({
      method: "get",
      path: "/api/loops/:id",
      summary: "One loop: status, goal, the spec in force, and its summary",
      params: loopParametersSchema,
      answer: { kind: "json", status: 200, schema: objectSchema, description: "the loop's detail" },
      handle: ({ params }) => operations.loopDetail(context, params.id),
    }),
    defineRoute({
      method: "delete",
      path: "/api/loops/:id",
      summary: "Deletes a loop that is not running: its worktrees, logs and timeline",
      params: loopParametersSchema,
      answer: { kind: "json", status: 200, schema: deletedSchema, description: "what was removed" },
      handle: async ({ params }) => acted(await operations.deleteLoop(context, params.id)),
    }),
    defineRoute({
      method: "get",
      path: "/api/loops/:id/iterations",
      summary: "The loop's iterations: outcome, commit, gate runs, tamper flags, verdict, cost",
      params: loopParametersSchema,
      answer: { kind: "json", status: 200, schema: iterationsSchema, description: "the iterations in order" },
      handle: ({ params }) => operations.loopIterations(context, params.id),
    }),
    defineRoute({
      method: "get",
      path: "/api/loops/:id/timeline",
      summary: "The loop's events after a global event id, a page at a time",
      params: loopParametersSchema,
      query: timelineQuerySchema,
      answer: { kind: "json", status: 200, schema: timelinePageSchema, description: "a page of events" },
      handle: ({ params, query }) => operations.loopTimeline(context, params.id, query),
    }),
    defineRoute({
      method: "get",
      path: "/api/loops/:id/iterations/:iteration/brief",
      summary: "The exact brief the maker was sent in an iteration",
      params: iterationParametersSchema,
      answer: { kind: "text", status: 200, mediaType: "text/markdown", description: "the brief" },
      handle: ({ params }) => operations.loopBrief(context, params.id, params.iteration),
    }),
    defineRoute({
      method: "get",
      path: "/api/loops/:id/iterations/:iteration/diff",
      summary: "The iteration's commit and its diff, per file",
      params: iterationParametersSchema,
      answer: { kind: "json", status: 200, schema: diffSchema, description: "the diff per file" },
      handle: ({ params }) => operations.loopDiff(context, params.id, params.iteration),
    }),
    defineRoute({
      method: "get",
      path: "/api/loops/:id/iterations/:iteration/gates/:gate/log",
      summary:
        "A gate's log, whole or ranged (HTTP Range `bytes=a-b`, or ?offset=&length=): 206 for a range, 416 past the end",
      params: gateLogParametersSchema,
      query: gateLogQuerySchema,
      answer: { kind: "text", status: 200, mediaType: "text/plain", description: "the log", ranged: true },
      handle: async ({ params, query, context: request }) => {
        const found = await operations.gateLogPath(
          context,
          params.id,
          params.iteration,
          params.gate,
          query.phase,
        );
        const folder = homeLayout(context.home).loopDirectory(found.loop.id);
        const range = requestedRange(request.req.header("range"), query);
        return answerLog(request, await readLog(found.path, folder, range, redact));
      },
    }),
    defineRoute({
      method: "get",
      path: "/api/loops/:id/report",
      summary: "The final report in Markdown",
      params: loopParametersSchema,
      answer: { kind: "text", status: 200, mediaType: "text/markdown", description: "the report" },
      handle: ({ params }) => operations.reportMarkdown(context, params.id),
    }),
    defineRoute({
      method: "get",
      path: "/api/loops/:id/report.json",
      summary: "The final report's data (as `report --json` prints it)",
      params: loopParametersSchema,
      answer: { kind: "json", status: 200, schema: objectSchema, description: "the report's data" },
      handle: ({ params }) => operations.reportData(context, params.id),
    }),
    defineRoute({
      method: "post",
      path: "/api/loops/:id/steer",
      summary: "Steers the loop (goal, gates, budget): applied at the next iteration boundary",
      params: loopParametersSchema,
      body: steerBodySchema,
      answer: { kind: "json", status: 202, schema: actionAnswerSchema, description: "the steer was filed" },
      handle: async ({ params, body }) =>
        acted(await operations.steerLoop(context, params.id, body, guard.actor())),
    }),
    ...(["pause", "resume", "cancel"] as const).map((action) =>
      defineRoute({
        method: "post",
        path: `/api/loops/:id/${action}`,
        summary: {
          pause: "Pauses the loop after its current iteration",
          resume: "Queues the loop to resume (the service starts it)",
          cancel: "Cancels the loop: the running turn is stopped",
        }[action],
        params: loopParametersSchema,
        body: emptyBodySchema,
        answer: {
          kind: "json",
          status: 202,
          schema: actionAnswerSchema,
          description: `the ${action} was filed`,
        },
        handle: async ({ params }) => {
          const run = {
            pause: operations.pauseLoop,
            resume: operations.resumeLoop,
            cancel: operations.cancelLoop,
          }[action];
          return acted(await run(context, params.id, guard.actor()));
        },
      }),
    ),
  ];
}

/** A log read as an answer: 200 whole, 206 with Content-Range, 416 with the size, or the refusal. */
function answerLog(context: Context, read: Awaited<ReturnType<typeof readLog>>): Response {
  const type = { "content-type": "text/plain; charset=utf-8", "accept-ranges": "bytes" };
  switch (read.kind) {
    case "whole":
      return context.body(new Uint8Array(read.bytes), 200, type);
    case "partial":
      return context.body(new Uint8Array(read.bytes), 206, {
        ...type,
        "content-range": `bytes ${read.start}-${read.end - 1}/${read.size}`,
      });
    case "unsatisfiable":
      return context.json(
        { error: `the range starts past the end of the log (${read.size} bytes)`, field: "range" },
        416,
        {
          "content-range": `bytes */${read.size}`,
        },
      );
    case "refused":
      return context.json({ error: read.reason }, read.status);
  }
}
