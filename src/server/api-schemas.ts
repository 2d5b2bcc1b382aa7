/**
 * Schemas of the API's own request and response bodies (parameters, paging, ranged reads, action
 * answers, errors); the bodies of loops and reports come from the application layer.
 */
import { z } from "zod";

/** Every 4xx/5xx answer: what is wrong, and the request field at fault when there is one. */
export const errorSchema = z.object({
  error: z.string(),
  field: z.string().optional().describe("the request field at fault: `budget.maxIterations`, `offset`"),
  problems: z
    .array(z.string())
    .optional()
    .describe("a spec's problems, one `file:line: field: message` each"),
});

export const loopParametersSchema = z.object({ id: z.string().min(1).describe("the id or the name") });

export const iterationParametersSchema = loopParametersSchema.extend({
  iteration: z.coerce.number().int().min(0).describe("the iteration number; 0 is the base commit's gate run"),
});

export const gateLogParametersSchema = iterationParametersSchema.extend({ gate: z.string().min(1) });

/** Query of a gate log: a ranged read by `offset` and `length` in bytes (or an HTTP Range header). */
export const gateLogQuerySchema = z
  .object({
    phase: z.string().min(1).optional().describe("baseline, grade, recheck, confirm...; default: the last"),
    offset: z.coerce.number().int().min(0).optional(),
    length: z.coerce.number().int().min(1).optional(),
  })
  .strict();

/** Query of the event streams: resume after this global event id (for clients that cannot set Last-Event-ID). */
export const streamQuerySchema = z
  .object({ after: z.coerce.number().int().min(0).optional().describe("default: only events from now on") })
  .strict();

/** An action without a body (pause, resume, cancel): an empty object, or nothing. */
export const emptyBodySchema = z.object({}).strict();

/** A new loop from a spec's text (YAML), as `run --detach` submits it. */
export const submitBodySchema = z
  .object({
    spec: z
      .string()
      .min(1)
      .max(1024 * 1024)
      .describe("the spec file's text (YAML)"),
    directory: z
      .string()
      .startsWith("/", "must be an absolute path")
      .describe(
        "the folder the spec would live in: the loop's repository is found from it, relative paths resolve in it",
      ),
    label: z
      .string()
      .min(1)
      .max(200)
      .optional()
      .describe("names the spec in problems (`label:line: field: message`); default loop.yaml"),
  })
  .strict();

/** The session of a browser or client: the secret actions carry on loopback, and the actor recorded. */
export const sessionSchema = z.object({
  secret: z
    .string()
    .describe("send as header x-loopwright-secret (or form field `loopwright_secret`) on every action"),
  actor: z.object({ via: z.literal("web"), name: z.string() }),
  tokenRequired: z.boolean(),
});

/** Query of a deletion: its branch too with `branch=true`. */
export const deleteQuerySchema = z
  .object({
    branch: z
      .enum(["true", "false"])
      .default("false")
      .transform((value) => value === "true"),
  })
  .strict();

/** Query of a diff: one file (its new or old path) instead of all. */
export const diffQuerySchema = z.object({ file: z.string().min(1).optional() }).strict();

/**
 * What a submission answers: a spec without `schedule:` becomes a queued loop (its place in the queue);
 * one with `schedule:` registers (or replaces) its schedule, which the service fires.
 */
export const submitAnswerSchema = z.discriminatedUnion("kind", [
  z.object({
    kind: z.literal("loop"),
    loopId: z.string(),
    name: z.string(),
    queuePosition: z.number(),
    warnings: z.array(z.string()),
    message: z.string(),
  }),
  z.object({
    kind: z.literal("schedule"),
    scheduleId: z.string(),
    name: z.string(),
    replaced: z.boolean().describe("a schedule of that name in that repository was replaced"),
    nextFiringAt: z.string().nullable().describe("ISO time of the first firing; null if it never fires"),
    warnings: z.array(z.string()),
    message: z.string(),
  }),
]);

/** Query of the schedules list: how many of each schedule's latest firings to show (default 5). */
export const scheduleListQuerySchema = z
  .object({ firings: z.coerce.number().int().min(0).max(100).optional() })
  .strict();
