/**
 * The JSON API's routes: each one parses its request by the application layer's schema, calls one
 * function of src/app/ (the CLI's commands call the same ones) and answers by its schema.
 */
import { z } from "zod";
import type { AppContext } from "../app/app-context.ts";
import { getBrief } from "../app/brief.ts";
import { cancelLoop } from "../app/cancel-loop.ts";
import { deleteLoop } from "../app/delete-loop.ts";
import { readGateLogBytes } from "../app/gate-log-reader.ts";
import { listGateLogs } from "../app/gate-logs.ts";
import { getIterationDiff } from "../app/iteration-diff.ts";
import { getIteration, listIterations } from "../app/iterations.ts";
import { listLoops } from "../app/list-loops.ts";
import { getLoop } from "../app/loop-detail.ts";
import { getReportData, getReportMarkdown } from "../app/loop-report.ts";
import { pauseLoop } from "../app/pause-loop.ts";
import { resumeLoop } from "../app/resume-loop.ts";
import { listScheduleViews, removeSchedule } from "../app/schedules.ts";
import { actionResultSchema, steerRequestSchema, steerResultSchema } from "../app/schemas/action-schemas.ts";
import { briefSchema, gateLogListSchema, iterationDiffSchema } from "../app/schemas/file-schemas.ts";
import { iterationDetailSchema, iterationListSchema } from "../app/schemas/iteration-schemas.ts";
import { listLoopsRequestSchema, loopDetailSchema, loopListSchema } from "../app/schemas/loop-schemas.ts";
import { loopReportSchema } from "../app/schemas/report-schemas.ts";
import { scheduleListSchema, scheduleRemovedSchema } from "../app/schemas/schedule-schemas.ts";
import { timelinePageRequestSchema, timelinePageSchema } from "../app/schemas/timeline-schemas.ts";
import { steerLoop } from "../app/steer-loop.ts";
import { readTimelinePage } from "../app/timeline-page.ts";
import type { Redact } from "../core/redact.ts";
import type { AccessGuard } from "./access-guard.ts";
import {
  deleteQuerySchema,
  diffQuerySchema,
  emptyBodySchema,
  gateLogParametersSchema,
  gateLogQuerySchema,
  iterationParametersSchema,
  loopParametersSchema,
  scheduleListQuerySchema,
  sessionSchema,
  submitAnswerSchema,
  submitBodySchema,
} from "./api-schemas.ts";
import { answerLog, requestedRange } from "./log-answer.ts";
import { type ApiRoute, defineRoute } from "./route-table.ts";
import { submitFromBody } from "./submit-route.ts";

export interface ApiRouteDependencies {
  context: AppContext;
  guard: AccessGuard;
  redact: Redact;
}

/** Every JSON route of the API (the event streams are in `sse-routes.ts`). */
export function apiRoutes(dependencies: ApiRouteDependencies): ApiRoute[] {
  const { context, guard, redact } = dependencies;
  const json = (schema: z.ZodType, description: string, status = 200) =>
    ({ kind: "json", status, schema, description }) as const;
  return [
    defineRoute({
      method: "get",
      path: "/api/session",
      summary: "The secret to send with every action (loopback), and the actor actions are recorded as",
      answer: json(sessionSchema, "the session"),
      handle: async () => ({
        secret: guard.secret,
        actor: guard.actor(),
        tokenRequired: guard.tokenRequired,
      }),
    }),
    defineRoute({
      method: "get",
      path: "/api/loops",
      summary: "Every loop (or one repository's) with its display status, queue position, phase and cost",
      query: listLoopsRequestSchema,
      answer: json(loopListSchema, "the loops, newest first"),
      handle: ({ query }) => listLoops(context, query),
    }),
    defineRoute({
      method: "post",
      path: "/api/loops",
      summary:
        "Submits a spec's text, validated exactly as `run` does: a new queued loop, or (a spec with `schedule:`) a registered schedule",
      body: submitBodySchema,
      answer: json(submitAnswerSchema, "the queued loop", 201),
      handle: async ({ body }) => await submitFromBody(context, body, guard.actor()),
    }),
    defineRoute({
      method: "get",
      path: "/api/schedules",
      summary: "Every schedule: its rule, next firing (in its zone and UTC), and latest firings",
      query: scheduleListQuerySchema,
      answer: json(z.object({ schedules: scheduleListSchema }), "the schedules, by repository then name"),
      handle: async ({ query }) => ({
        schedules: await listScheduleViews(context, { all: true, firings: query.firings }),
      }),
    }),
    defineRoute({
      method: "delete",
      path: "/api/schedules/:id",
      summary: "Removes a schedule (by id or name) and its firings; the loops it started stay",
      params: loopParametersSchema,
      answer: json(scheduleRemovedSchema, "what was removed"),
      handle: ({ params }) => removeSchedule(context, params.id, guard.actor()),
    }),
    defineRoute({
      method: "get",
      path: "/api/loops/:id",
      summary: "One loop (by id or name): status, queue, phase, goal, the spec in force, its summary",
      params: loopParametersSchema,
      answer: json(loopDetailSchema, "the loop's detail"),
      handle: ({ params }) => getLoop(context, params.id),
    }),
    defineRoute({
      method: "delete",
      path: "/api/loops/:id",
      summary: "Deletes a loop that is not running: worktrees, logs, timeline (its branch with ?branch=true)",
      params: loopParametersSchema,
      query: deleteQuerySchema,
      answer: json(actionResultSchema.extend({ branchDeleted: z.string().nullable() }), "what was removed"),
      handle: async ({ params, query }) =>
        await deleteLoop(context, params.id, guard.actor(), { branch: query.branch }),
    }),
    defineRoute({
      method: "get",
      path: "/api/loops/:id/iterations",
      summary: "The loop's iterations: outcome, commit, gate runs, tamper flags, verdict, cost",
      params: loopParametersSchema,
      answer: json(iterationListSchema, "the iterations in order"),
      handle: ({ params }) => listIterations(context, params.id),
    }),
    defineRoute({
      method: "get",
      path: "/api/loops/:id/iterations/:iteration",
      summary: "One iteration in full",
      params: iterationParametersSchema,
      answer: json(iterationDetailSchema, "the iteration"),
      handle: ({ params }) => getIteration(context, params.id, params.iteration),
    }),
    defineRoute({
      method: "get",
      path: "/api/loops/:id/timeline",
      summary: "The loop's events after a global event id (`after`), a page at a time",
      params: loopParametersSchema,
      query: timelinePageRequestSchema,
      answer: json(timelinePageSchema, "a page of events"),
      handle: ({ params, query }) => readTimelinePage(context, params.id, query),
    }),
    defineRoute({
      method: "get",
      path: "/api/loops/:id/iterations/:iteration/brief",
      summary: "The exact brief the maker was sent in an iteration",
      params: iterationParametersSchema,
      answer: json(briefSchema, "the brief"),
      handle: ({ params }) => getBrief(context, params.id, { iteration: params.iteration }),
    }),
    defineRoute({
      method: "get",
      path: "/api/loops/:id/iterations/:iteration/diff",
      summary: "The iteration's change per file, with the scope screen's verdict on each (?file= for one)",
      params: iterationParametersSchema,
      query: diffQuerySchema,
      answer: json(iterationDiffSchema, "the change per file"),
      handle: ({ params, query }) =>
        getIterationDiff(context, params.id, { iteration: params.iteration, file: query.file }),
    }),
    defineRoute({
      method: "get",
      path: "/api/loops/:id/iterations/:iteration/gates",
      summary: "The gate logs of an iteration (0: the base commit's run): which runs, sizes, problems",
      params: iterationParametersSchema,
      answer: json(gateLogListSchema, "the iteration's gate logs"),
      handle: ({ params }) => listGateLogs(context, params.id, { iteration: params.iteration }),
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
        const range = requestedRange(request.req.header("range"), query);
        const run = { iteration: params.iteration, gate: params.gate, phase: query.phase };
        return answerLog(request, await readGateLogBytes(context, params.id, run, { range, redact }));
      },
    }),
    defineRoute({
      method: "get",
      path: "/api/loops/:id/report",
      summary: "The final report in Markdown",
      params: loopParametersSchema,
      answer: { kind: "text", status: 200, mediaType: "text/markdown", description: "the report" },
      handle: async ({ params }) => (await getReportMarkdown(context, params.id)).markdown,
    }),
    defineRoute({
      method: "get",
      path: "/api/loops/:id/report.json",
      summary: "The final report's data (as `report --json` prints it)",
      params: loopParametersSchema,
      answer: json(loopReportSchema, "the report's data"),
      handle: ({ params }) => getReportData(context, params.id),
    }),
    defineRoute({
      method: "post",
      path: "/api/loops/:id/steer",
      summary:
        "Steers the loop (goal, gates, budget): applied at the next iteration boundary, or when it resumes",
      params: loopParametersSchema,
      body: steerRequestSchema,
      answer: json(steerResultSchema, "the steer was filed", 202),
      handle: async ({ params, body }) => await steerLoop(context, params.id, body, guard.actor()),
    }),
    ...(["pause", "resume", "cancel"] as const).map((action) =>
      defineRoute({
        method: "post",
        path: `/api/loops/:id/${action}`,
        summary: {
          pause: "Pauses the loop after its current iteration",
          resume: "Queues the loop to resume: the service starts it in submission order",
          cancel: "Cancels the loop: the running turn is stopped (a loop without a controller stops here)",
        }[action],
        params: loopParametersSchema,
        body: emptyBodySchema,
        answer: json(actionResultSchema, `the ${action} was filed`, 202),
        handle: async ({ params }) => {
          const run = { pause: pauseLoop, resume: resumeLoop, cancel: cancelLoop }[action];
          return run(context, params.id, guard.actor());
        },
      }),
    ),
  ];
}
