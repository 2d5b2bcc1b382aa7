/**
 * Schemas of a loop's summary as `show --json` prints it and the API answers it (the shapes of
 * src/loop/iteration-summary.ts, checked against them by tsc).
 */
import { z } from "zod";
import { reviewSeverities } from "../../core/events.ts";
import type { GateRunSummary, IterationSummary, LoopSummary } from "../../loop/iteration-summary.ts";
import type { Lesson, ReviewRound } from "../../loop/state.ts";

/** One run of one gate: phase, exit code, duration, failures counted, why it is red in words. */
export const gateRunSummarySchema = z.object({
  id: z.string(),
  kind: z.string(),
  phase: z.string().describe("baseline, grade, recheck, confirm, confirm-2, ..."),
  passed: z.boolean(),
  exitCode: z.number().nullable(),
  timedOut: z.boolean(),
  durationMs: z.number(),
  failureCount: z.number(),
  why: z.string().describe("why it is red, in words; empty when green"),
}) satisfies z.ZodType<GateRunSummary>;

/** The verifier's ruling on one tamper flag. */
export const tamperRulingSchema = z.object({ id: z.string(), legitimate: z.boolean(), reason: z.string() });

/** A tamper flag of an iteration, with its class, standing and the verifier's ruling. */
export const tamperFlagSummarySchema = z.object({
  id: z.string(),
  kind: z.string(),
  file: z.string().optional(),
  line: z.number().optional(),
  detail: z.string(),
  tamperClass: z.enum(["blocking", "advisory"]),
  standing: z.enum(["blocking", "accepted", "advisory"]),
  ruling: tamperRulingSchema.optional(),
});

/** A reviewer's finding: a file of the reviewed patch, a line of it when it has one. */
export const reviewFindingSchema = z.object({
  severity: z.enum(reviewSeverities),
  file: z.string(),
  line: z.number().optional(),
  message: z.string(),
});

/** One review round: the patch `fromSha`..`sha`, the reviewer's verdict, its findings kept and dropped. */
export const reviewRoundSchema = z.object({
  round: z.number(),
  sha: z.string(),
  fromSha: z.string(),
  files: z.array(z.string()),
  patchPath: z.string(),
  running: z.boolean(),
  rejections: z.number().describe("malformed answers, each followed by a corrective retry"),
  status: z
    .enum(["reviewed", "invalid", "crashed", "timeout", "cancelled", "interrupted", "over_budget"])
    .optional(),
  verdict: z.enum(["ok", "changes_requested"]).optional(),
  findings: z.array(reviewFindingSchema),
  dropped: z
    .array(reviewFindingSchema.extend({ reason: z.string() }))
    .describe("findings citing a file or line not in the patch"),
  error: z.string().optional(),
}) satisfies z.ZodType<ReviewRound>;

/** A lesson the loop learned, for the user to adopt into LESSONS.md. */
export const lessonSchema = z.object({
  iteration: z.number(),
  source: z.enum(["verifier", "replanner"]),
  text: z.string(),
}) satisfies z.ZodType<Lesson>;

/** One iteration in brief: outcome, commit, gate runs, flakes, tamper flags, verdict, cost, duration. */
export const iterationSummarySchema = z.object({
  iteration: z.number(),
  outcome: z.string().describe("verified, failed, infra_error, cancelled, over_budget, or running"),
  summary: z.string(),
  commit: z.string().optional(),
  counted: z.boolean(),
  gates: z.array(gateRunSummarySchema),
  flaky: z.array(z.string()),
  tamperFlags: z.array(tamperFlagSummarySchema),
  verdict: z.string().optional(),
  reviews: z.array(reviewRoundSchema),
  fingerprint: z.string().optional(),
  repeat: z.boolean(),
  briefBytes: z.number(),
  costUsd: z.number(),
  durationMs: z.number().optional(),
}) satisfies z.ZodType<IterationSummary>;

/** The whole loop in brief, as `show --json` prints it (without `id` and `repoRoot`). */
export const loopSummarySchema = z.object({
  name: z.string(),
  status: z.string().describe("the replayed state's status: created, running, paused, parked, stopped"),
  stopReason: z.string().optional(),
  stopMessage: z.string().optional(),
  verifiedAs: z.string().optional(),
  tamperFlagsRuledLegitimate: z.number(),
  baseline: z.array(gateRunSummarySchema),
  iterations: z.array(iterationSummarySchema),
  costUsd: z.number(),
  uncostedTurns: z.number(),
  tokens: z.object({ input: z.number(), output: z.number() }),
  lessons: z.array(lessonSchema),
  branch: z.string(),
  finished: z.object({ pushed: z.boolean(), sha: z.string(), error: z.string().optional() }).optional(),
}) satisfies z.ZodType<LoopSummary>;
