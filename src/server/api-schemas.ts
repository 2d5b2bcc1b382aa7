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

export const loopParametersSchema = z.object({ id: z.string().min(1).describe("the loop's id or name") });

export const iterationParametersSchema = loopParametersSchema.extend({
  iteration: z.coerce.number().int().min(0).describe("the iteration number; 0 is the base commit's gate run"),
});

export const gateLogParametersSchema = iterationParametersSchema.extend({ gate: z.string().min(1) });

/** Query of a timeline page: events after the global event id `after`, at most `limit`. */
export const timelineQuerySchema = z
  .object({
    after: z.coerce.number().int().min(0).default(0),
    limit: z.coerce.number().int().min(1).max(1000).default(200),
  })
  .strict();

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

/** One timeline event as the API answers it and the event streams send it (`data:` of each SSE message). */
export const timelineEventSchema = z.object({
  id: z.number().describe("global event id, strictly increasing across loops, never reused"),
  loopId: z.string(),
  seq: z.number().describe("the event's number within its loop"),
  type: z.string(),
  at: z.string(),
  data: z.record(z.string(), z.unknown()),
  damage: z.string().optional(),
});

export const timelinePageSchema = z.object({
  events: z.array(timelineEventSchema),
  next: z.number().nullable().describe("pass as `after` for the next page; null at the end"),
});

/** What an owner action answers: the loop, the event that recorded it, and what will happen. */
export const actionAnswerSchema = z.object({
  loopId: z.string(),
  eventId: z.number().optional(),
  message: z.string(),
});

/** Steering, as `loopwright steer` takes it: gates as objects, budget values as text or numbers. */
export const steerBodySchema = z
  .object({
    goal: z.string().min(1).optional(),
    addGates: z.array(z.record(z.string(), z.unknown())).optional(),
    removeGates: z.array(z.string().min(1)).optional(),
    budget: z.record(z.string(), z.union([z.string(), z.number()])).optional(),
  })
  .strict()
  .refine((body) => Object.keys(body).length > 0, {
    message: "nothing to change (goal, addGates, removeGates or budget)",
  });

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

/** Loosely typed bodies until the application layer's schemas replace them. */
export const objectSchema = z.record(z.string(), z.unknown());
export const loopListSchema = z.object({ loops: z.array(objectSchema), warnings: z.array(z.string()) });
export const iterationsSchema = z.object({ iterations: z.array(objectSchema) });
export const diffSchema = z.object({
  commit: z.string().nullable(),
  files: z.array(z.object({ path: z.string(), diff: z.string() })),
});
export const deletedSchema = z.object({ loopId: z.string(), message: z.string() });
