/**
 * Schemas of the owner's actions: the request bodies (the actor is never part of a body: the face that
 * took the request names it) and what each action answers.
 */
import { z } from "zod";

/**
 * A steering request as typed: the new goal, gates to add (as a spec's `gates` entries) and remove, and
 * budget values (`maxIterations: 5`, `wallClockPerIteration: "30m"`). At least one of them.
 */
export const steerRequestSchema = z
  .object({
    goal: z.string().optional(),
    addGates: z.array(z.unknown()).optional(),
    removeGates: z.array(z.string()).optional(),
    budget: z.record(z.string(), z.union([z.string(), z.number()])).optional(),
  })
  .strict();

/** What steering filed: when it applies, and a warning when it would stop again at once. */
export const steerResultSchema = z.object({
  loopId: z.string(),
  name: z.string(),
  /** The request as recorded: parsed, gates with their defaults, durations in milliseconds. */
  request: z.record(z.string(), z.unknown()),
  appliesAt: z.enum(["next_iteration", "resume"]),
  message: z.string(),
  warning: z.string().nullable(),
});

/** What pause, cancel, resume and delete answer: the loop, what happened, in one sentence. */
export const actionResultSchema = z.object({
  loopId: z.string(),
  name: z.string(),
  /**
   * `pause_requested`, `cancel_requested` (a running controller stops the loop), `cancelled` (stopped
   * here, no controller was running), `queued` (a service resumes it), `deleted`.
   */
  outcome: z.enum(["pause_requested", "cancel_requested", "cancelled", "queued", "deleted"]),
  message: z.string(),
  /** For `queued`: the loop's place in the queue (1 = next). */
  queuePosition: z.number().nullable(),
});

/** Deleting a loop: its worktrees, logs and record; its branch too with `branch: true`. */
export const deleteRequestSchema = z.object({ branch: z.boolean().default(false) }).strict();

export type SteerRequestBody = z.input<typeof steerRequestSchema>;
export type SteerResult = z.infer<typeof steerResultSchema>;
export type ActionResult = z.infer<typeof actionResultSchema>;
export type DeleteRequest = z.input<typeof deleteRequestSchema>;
