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

/** The report's data (`report --json`): goal, summary, gate standings, the last verdict. */
export const loopReportSchema = loopSummarySchema.extend({
  goal: z.string(),
  gateStandings: z.array(gateStandingSchema),
  verdict: verdictResponseSchema.nullable(),
});

/** The report in Markdown. */
export const loopReportMarkdownSchema = z.object({ loopId: z.string(), markdown: z.string() });

export type LoopReport = z.infer<typeof loopReportSchema>;
export type LoopReportMarkdown = z.infer<typeof loopReportMarkdownSchema>;
