/** Schemas of the loops list and of one loop's detail, as the app returns them and the API answers them. */
import { z } from "zod";
import { displayStatuses } from "../display-status.ts";
import { loopSummarySchema } from "./summary-schemas.ts";

/** What a running loop is doing now; null between steps or when it is not running. */
export const loopPhaseSchema = z.enum(["baseline", "maker", "gates", "verifier", "replan"]).nullable();

/** One row of the loops list (`ls --json` prints an array of these). */
export const loopListingSchema = z.object({
  id: z.string(),
  name: z.string(),
  repoRoot: z.string(),
  status: z.enum(displayStatuses),
  stopReason: z.string().nullable(),
  stopDescription: z
    .string()
    .nullable()
    .describe("`verified, 2 tamper flags ruled legitimate` for a verified loop, else the stop reason"),
  tamperFlagsRuledLegitimate: z.number(),
  iterations: z.number(),
  costUsd: z.number(),
  createdAt: z.string(),
  /** 1 = the next queued loop a service starts; null unless queued. */
  queuePosition: z.number().nullable(),
  queuedAt: z.string().nullable(),
  phase: loopPhaseSchema,
  /** The iteration budget; 0 means no limit. */
  maxIterations: z.number(),
  costTodayUsd: z.number().describe("dollars spent on the current UTC day"),
  maxCostUsdPerDay: z.number().describe("the daily cost cap; 0 means none"),
  /** Each iteration's outcome in order (`running` for one in progress): the dashboard's strip. */
  outcomes: z.array(z.string()),
});

/** The loops list: rows newest first, and one warning per damaged loop or damaged event rows. */
export const loopListSchema = z.object({
  loops: z.array(loopListingSchema),
  warnings: z.array(z.string()),
});

/** Query of the loops list: one repository's loops, or every loop when absent. */
export const listLoopsRequestSchema = z.object({ repoRoot: z.string().min(1).optional() }).strict();

/** A damaged event row skipped while replaying. */
export const damagedEventSchema = z.object({ seq: z.number(), reason: z.string() });

/** One loop's detail: identity, display status, queue, goal, the spec in force, and the summary. */
export const loopDetailSchema = z.object({
  id: z.string(),
  name: z.string(),
  repoRoot: z.string(),
  specPath: z.string(),
  createdAt: z.string(),
  status: z.enum(displayStatuses),
  queuePosition: z.number().nullable(),
  queued: z.object({ command: z.enum(["run", "resume"]), at: z.string() }).nullable(),
  phase: loopPhaseSchema,
  baseSha: z.string().nullable(),
  goal: z.string(),
  /** The spec in force (steering applied), as JSON. */
  spec: z.record(z.string(), z.unknown()),
  pendingSteers: z.number().describe("steering requests filed, not applied yet"),
  parkedUntil: z.string().nullable(),
  costTodayUsd: z.number(),
  /** Steering that will never apply, in words; null when there is none. */
  unappliedSteering: z.string().nullable(),
  damaged: z.array(damagedEventSchema),
  summary: loopSummarySchema,
});

export type LoopListing = z.infer<typeof loopListingSchema>;
export type LoopList = z.infer<typeof loopListSchema>;
export type LoopDetail = z.infer<typeof loopDetailSchema>;
