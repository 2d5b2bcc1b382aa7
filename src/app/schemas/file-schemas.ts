/** Schemas of what a loop wrote down per iteration: the brief, the diff per file, the gate logs. */
import { z } from "zod";

/** Which iteration: 1 or more; absent for the latest. `iteration` 0 is the gates' run on the base commit. */
const iterationField = z.coerce.number().int().nonnegative();

export const briefRequestSchema = z.object({ iteration: iterationField.optional() }).strict();

/** The exact brief a maker was sent (redacted as sent). */
export const briefSchema = z.object({ loopId: z.string(), iteration: z.number(), brief: z.string() });

export const diffRequestSchema = z
  .object({ iteration: iterationField, file: z.string().min(1).optional() })
  .strict();

/** One file of an iteration's change, with the scope screen's verdict on it. */
export const diffFileSchema = z.object({
  path: z.string(),
  oldPath: z.string(),
  status: z.enum(["added", "deleted", "modified", "renamed"]),
  binary: z.boolean(),
  additions: z.number(),
  deletions: z.number(),
  /** The scope rule the file broke (`outside scope.allow`, `scope.deny: x`), or null. */
  scopeViolation: z.string().nullable(),
  /** A file of the tamper set (tests, configs, manifests, ...): the verifier rules on changes to it. */
  protected: z.boolean(),
  /** The file's part of the unified diff (redacted), `diff --git` header included. */
  patch: z.string(),
});

/** An iteration's change per file, as screened (redacted: a secret value never appears). */
export const iterationDiffSchema = z.object({
  loopId: z.string(),
  iteration: z.number(),
  commit: z.string().nullable(),
  files: z.array(diffFileSchema),
});

export const gateLogsRequestSchema = z
  .object({ iteration: iterationField.optional(), gate: z.string().min(1).optional() })
  .strict();

/** One gate log of an iteration: which run, where, how large, or why it cannot be read. */
export const gateLogEntrySchema = z.object({
  gate: z.string(),
  phase: z.string(),
  kind: z.string(),
  passed: z.boolean(),
  exitCode: z.number().nullable(),
  logPath: z.string(),
  sizeBytes: z.number().nullable(),
  /** True when the log file does not exist (any more). */
  missing: z.boolean(),
  /** Why the log cannot be read (`no such file`, `is a symbolic link, not a file`); null when it can. */
  problem: z.string().nullable(),
});

/** The gate logs of one iteration (0: the base commit). */
export const gateLogListSchema = z.object({
  loopId: z.string(),
  iteration: z.number(),
  logs: z.array(gateLogEntrySchema),
});

/** Largest part of a log one read returns: 16 MiB, the default cap of a whole log. */
export const maximumLogReadBytes = 16 * 1024 * 1024;

/** Which run's log: iteration (default: the last that ran its gates), gate, phase. */
export const gateLogRunRequestSchema = z
  .object({
    iteration: iterationField.optional(),
    gate: z.string().min(1),
    /** grade, recheck, confirm, baseline...; default: the gate's last run in the iteration. */
    phase: z.string().min(1).optional(),
  })
  .strict();

export const gateLogReadRequestSchema = gateLogRunRequestSchema
  .extend({
    offset: z.coerce.number().int().nonnegative().default(0),
    length: z.coerce
      .number()
      .int()
      .min(1)
      .max(maximumLogReadBytes)
      .default(1024 * 1024),
  })
  .strict();

/**
 * A byte range of one gate log. `text` never ends inside a UTF-8 character unless the log does:
 * reading on from `nextOffset` gives the rest exactly.
 */
export const gateLogRangeSchema = z.object({
  loopId: z.string(),
  iteration: z.number(),
  gate: z.string(),
  phase: z.string(),
  logPath: z.string(),
  offset: z.number(),
  /** Bytes returned (`text` is their UTF-8 decoding). */
  length: z.number(),
  totalBytes: z.number().describe("the log's size when it was opened"),
  nextOffset: z.number(),
  /** True when the range reaches the end of the log. */
  complete: z.boolean(),
  text: z.string(),
});

export type BriefRequest = z.input<typeof briefRequestSchema>;
export type Brief = z.infer<typeof briefSchema>;
export type DiffRequest = z.input<typeof diffRequestSchema>;
export type IterationDiff = z.infer<typeof iterationDiffSchema>;
export type GateLogsRequest = z.input<typeof gateLogsRequestSchema>;
export type GateLogList = z.infer<typeof gateLogListSchema>;
export type GateLogRunRequest = z.input<typeof gateLogRunRequestSchema>;
export type GateLogReadRequest = z.input<typeof gateLogReadRequestSchema>;
export type GateLogRange = z.infer<typeof gateLogRangeSchema>;
