/** Schemas of a loop's final report: Markdown, and the data `report --json` prints. */
import { z } from "zod";
import { verdictResponseSchema } from "./iteration-schemas.ts";
import { loopSummarySchema } from "./summary-schemas.ts";

/** Each deterministic gate's standing in the last graded iteration, against the base commit. */
export const gateStandingSchema = z.object({
  id: z.string(),
  status: z.string(),
  newFailures: z.array(z.string()),
  preexistingFailures: z.array(z.string()),
  passedOnBase: z.boolean().nullable(),
});

/** What the loop's strategy found: a streak's runs and per-test failure rates, a task list's standing, a metric's results table. */
export const strategyDataSchema = z.object({
  kind: z.string(),
  streak: z
    .object({
      fullRuns: z.number(),
      failedRuns: z.number(),
      finalStreak: z.number(),
      finalSha: z.string().optional(),
      failureRateBound: z.number().optional(),
      tests: z.array(
        z.object({
          test: z.string(),
          failures: z.number(),
          runs: z.number(),
          rate: z.number(),
          failedIn: z.array(z.number()),
          removedBy: z.number().optional(),
        }),
      ),
      passes: z.number(),
      maxRuns: z.number(),
      runs: z.array(
        z.object({
          iteration: z.number(),
          phase: z.string(),
          sha: z.string(),
          passed: z.boolean(),
          failing: z.array(z.string()),
        }),
      ),
      proves: z.string().optional(),
    })
    .optional(),
  tasks: z
    .array(
      z.object({
        id: z.string(),
        title: z.string(),
        criteria: z.array(z.string()),
        done: z.boolean(),
        status: z.enum(["open", "done", "blocked"]),
        completed: z.object({ iteration: z.number(), sha: z.string() }).optional(),
        blocked: z.object({ iteration: z.number(), attempts: z.number(), reason: z.string() }).optional(),
      }),
    )
    .optional(),
  taskFile: z.string().optional(),
  currentTaskId: z.string().optional(),
  metric: z
    .object({
      measurements: z.array(
        z.object({
          iteration: z.number(),
          phase: z.enum(["base", "attempt", "remeasure"]),
          sha: z.string(),
          samples: z.array(z.number()),
          median: z.number().optional(),
          error: z.string().optional(),
          logPaths: z.array(z.string()),
        }),
      ),
      judgements: z.array(
        z.object({
          iteration: z.number(),
          sha: z.string(),
          kept: z.boolean(),
          median: z.number().optional(),
          best: z.number(),
          noise: z.number(),
          keptSha: z.string(),
          ref: z.string().optional(),
          reason: z.string(),
        }),
      ),
      summary: z
        .object({
          direction: z.enum(["minimize", "maximize"]),
          samples: z.number(),
          baseSha: z.string(),
          baseMedian: z.number(),
          noise: z.number(),
          best: z.number(),
          bestSha: z.string(),
          kept: z.number(),
          target: z.number().optional(),
        })
        .optional(),
      attempts: z.array(
        z.object({
          iteration: z.number(),
          sha: z.string(),
          samples: z.array(z.number()),
          median: z.number().optional(),
          remeasured: z.number().optional(),
          kept: z.boolean(),
          reason: z.string(),
          ref: z.string().optional(),
          bestAfter: z.number(),
        }),
      ),
    })
    .optional(),
});

/** The report's data (`report --json`): goal, summary, gate standings, the last verdict. */
export const loopReportSchema = loopSummarySchema.extend({
  goal: z.string(),
  gateStandings: z.array(gateStandingSchema),
  strategy: strategyDataSchema,
  verdict: verdictResponseSchema.nullable(),
});

/** The report in Markdown. */
export const loopReportMarkdownSchema = z.object({ loopId: z.string(), markdown: z.string() });

export type LoopReport = z.infer<typeof loopReportSchema>;
export type LoopReportMarkdown = z.infer<typeof loopReportMarkdownSchema>;
