import { z } from "zod";
import { timerDuration } from "./duration.ts";

/**
 * The `strategy:` field of a spec: the shape of the loop. Every strategy is a policy over the same
 * timeline (see src/loop/strategies/); this file only says what a spec may ask for. Written either as a
 * bare name (`strategy: streak`, defaults filled in) or as an object with `kind`. Default: `until-verified`.
 */

export const strategyKinds = ["until-verified", "streak", "tasks", "metric"] as const;
export type StrategyKind = (typeof strategyKinds)[number];

/**
 * The strategy schemas, built at the first parse of a spec that names a strategy: most specs take the
 * default, and a spec's parse then builds none of them (building zod schemas is most of the schema
 * module's load).
 */
function buildStrategySchemas() {
  /** Iterate until the gates and the verifier hold (the default). */
  const untilVerifiedSchema = z.object({ kind: z.literal("until-verified") }).strict();

  /**
   * The flaky-test stabilizer: run the full suite until it passes `passes` times in a row on one commit
   * (`verified`), at most `maxRuns` full runs in all (`budget_exhausted`).
   */
  const streakSchema = z
    .object({
      kind: z.literal("streak"),
      passes: z.number().int().min(1).max(100).default(3),
      maxRuns: z.number().int().min(1).max(10_000).default(20),
    })
    .strict()
    .superRefine((streak, context) => {
      if (streak.maxRuns < streak.passes)
        context.addIssue({
          code: "custom",
          path: ["maxRuns"],
          message: `must be at least passes (${streak.passes}): a streak needs that many runs`,
        });
    });

  /**
   * One requirement per iteration: the first open task of `file` (Markdown checkboxes, an OpenSpec
   * tasks.md, or a prd.json), ticked by loopwright when verified. A task that fails `maxAttemptsPerTask`
   * times stops the loop (`onStuck: stop`, no_progress) or is marked blocked (`onStuck: skip`).
   */
  const tasksSchema = z
    .object({
      kind: z.literal("tasks"),
      file: z
        .string()
        .trim()
        .min(1)
        .refine((path) => !path.startsWith("/") && !path.split(/[\\/]/).includes(".."), {
          message: "a path inside the repository (relative, no ..)",
        }),
      maxAttemptsPerTask: z.number().int().min(1).max(100).default(3),
      onStuck: z.enum(["stop", "skip"]).default("stop"),
    })
    .strict();

  /**
   * Keep or discard against a noise floor: `run` prints the metric, `pattern`'s first group captures it.
   * The base commit is measured `samples` times; the noise floor is their median absolute deviation, at
   * least `minNoise` times the base median. An attempt is kept only when its median (and a re-measure of
   * it) beats the best kept median by more than the noise floor and every gate holds; otherwise the
   * branch goes back to the best kept commit. `target` stops the loop `target_reached`; `plateau`
   * attempts in a row without a kept change stop it `plateau` (0: never).
   */
  const metricSchema = z
    .object({
      kind: z.literal("metric"),
      run: z.string().trim().min(1),
      pattern: z
        .string()
        .min(1)
        .refine(capturesOneGroup, { message: "a regular expression with a capture group for the number" }),
      direction: z.enum(["minimize", "maximize"]),
      samples: z.number().int().min(1).max(50).default(3),
      target: z.number().optional(),
      plateau: z.number().int().min(0).default(8),
      minNoise: z.number().min(0).max(1).default(0.001),
      timeout: z
        .union([z.number(), z.string()])
        .default("30m")
        .transform((value, context) => {
          const read = timerDuration(value);
          if ("ms" in read) return read.ms;
          context.addIssue({ code: "custom", message: read.problem });
          return z.NEVER;
        }),
    })
    .strict();

  const strategyObjectSchema = z.discriminatedUnion("kind", [
    untilVerifiedSchema,
    streakSchema,
    tasksSchema,
    metricSchema,
  ]);

  const strategySchema = z.union([
    // Named alone, a kind takes its defaults; one with required settings is a spec problem (the union
    // then reports that a mapping was expected), never a throw.
    z.enum(strategyKinds).transform((kind, context) => {
      const parsed = strategyObjectSchema.safeParse({ kind }, { jitless: true });
      if (parsed.success) return parsed.data;
      const needed = parsed.error.issues.map((issue) => issue.path.join(".")).join(", ");
      context.addIssue({
        code: "custom",
        message: `strategy ${kind} needs its settings (${needed}): write strategy: { kind: ${kind}, ... }`,
      });
      return z.NEVER;
    }),
    strategyObjectSchema,
  ]);
  return { strategyObjectSchema, strategySchema };
}

let built: ReturnType<typeof buildStrategySchemas> | undefined;

function strategySchemas(): ReturnType<typeof buildStrategySchemas> {
  built ??= buildStrategySchemas();
  return built;
}

/** The `strategy:` field's schema (a bare name or an object with `kind`); its parts are built at first use. */
export const strategySchema = z.lazy(() => strategySchemas().strategySchema);

function capturesOneGroup(pattern: string): boolean {
  try {
    return new RegExp(`${pattern}|`).exec("")?.length !== 1;
  } catch {
    return false;
  }
}

export type StrategySpec = z.output<ReturnType<typeof buildStrategySchemas>["strategyObjectSchema"]>;
export type StreakStrategy = Extract<StrategySpec, { kind: "streak" }>;
export type TasksStrategy = Extract<StrategySpec, { kind: "tasks" }>;
export type MetricStrategy = Extract<StrategySpec, { kind: "metric" }>;

export { criterionGatePrefix } from "./criterion-gate.ts";

export const defaultStrategy: StrategySpec = { kind: "until-verified" };
