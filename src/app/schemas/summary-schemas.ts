/**
 * Schemas of a loop's summary as `show --json` prints it and the API answers it (the shapes of
 * src/loop/iteration-summary.ts, checked against them by tsc).
 */
import { z } from "zod";
import type { GateRunSummary, IterationSummary, LoopSummary } from "../../loop/iteration-summary.ts";

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
  branch: z.string(),
  finished: z.object({ pushed: z.boolean(), sha: z.string(), error: z.string().optional() }).optional(),
}) satisfies z.ZodType<LoopSummary>;
