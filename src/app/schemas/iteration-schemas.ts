/** Schemas of one iteration in full: what the dashboard's glass box shows of it. */
import { z } from "zod";
import { iterationSummarySchema, tamperRulingSchema } from "./summary-schemas.ts";

/** One gate run as recorded: exit code, duration, tail and failures (redacted), where its log is. */
export const gateResultSchema = z.object({
  id: z.string(),
  kind: z.string(),
  command: z.string(),
  phase: z.string(),
  sha: z.string(),
  exitCode: z.number().nullable(),
  passed: z.boolean(),
  timedOut: z.boolean(),
  durationMs: z.number(),
  logPath: z.string(),
  tail: z.string(),
  survivorsKilled: z.number(),
  error: z.string().optional(),
  failures: z.array(z.string()).optional(),
  testsExecuted: z.number().optional(),
  incomplete: z.string().optional(),
  rerunOnly: z.array(z.string()).optional(),
  digestPath: z.string().optional(),
});

const evidenceSchema = z.union([
  z.object({ file: z.string(), line: z.number().optional() }),
  z.object({ gate: z.string(), quote: z.string() }),
]);

/** The verifier's verdict: a ruling with evidence per gate, one per tamper flag, and notes. */
export const verdictResponseSchema = z.object({
  overall: z.enum(["pass", "fail"]),
  gates: z.array(
    z.object({
      id: z.string(),
      passed: z.boolean(),
      reason: z.string().optional(),
      evidence: z.array(evidenceSchema),
    }),
  ),
  tamper: z.array(tamperRulingSchema).optional(),
  notes: z.string().optional(),
  lesson: z.string().optional().describe("one imperative line, kept when the verdict rejects something"),
});

/** One iteration in full: its summary, the brief as sent, maker, commit, screen, every gate run, verifier. */
export const iterationDetailSchema = z.object({
  loopId: z.string(),
  summary: iterationSummarySchema,
  brief: z.string(),
  startSha: z.string(),
  makerAttempts: z.number(),
  maker: z
    .object({
      status: z.string(),
      account: z.string().describe("what the maker said it did (redacted): the claimed side"),
      exitCode: z.number().nullable().optional(),
      error: z.string().optional(),
      durationMs: z.number(),
      costUsd: z.number().optional(),
    })
    .nullable(),
  commit: z.object({ sha: z.string(), committed: z.boolean(), files: z.array(z.string()) }).nullable(),
  screen: z
    .object({
      changedFiles: z.array(z.string()),
      scopeViolations: z.array(z.object({ file: z.string(), rule: z.string() })),
      protectedFiles: z.array(z.string()),
      diffHash: z.string(),
    })
    .nullable(),
  /** Every finished gate run, phase by phase in the order they ran. */
  gates: z.array(gateResultSchema),
  gatesRunning: z.array(z.object({ gateId: z.string(), phase: z.string() })),
  verifier: z
    .object({
      status: z.string(),
      verdict: verdictResponseSchema.optional(),
      error: z.string().optional(),
      wroteFiles: z.array(z.string()),
    })
    .nullable(),
  ended: z
    .object({
      outcome: z.string(),
      failingGates: z.array(z.string()),
      fingerprint: z.string().optional(),
      repeat: z.boolean(),
      summary: z.string(),
    })
    .nullable(),
});

export const iterationListSchema = z.object({
  loopId: z.string(),
  iterations: z.array(iterationSummarySchema),
});

export type IterationDetail = z.infer<typeof iterationDetailSchema>;
export type IterationList = z.infer<typeof iterationListSchema>;
