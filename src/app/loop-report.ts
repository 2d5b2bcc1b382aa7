/** A loop's final report: Markdown (src/loop/report.ts renders it) and its data as JSON. */
import { summarizeLoop } from "../loop/iteration-summary.ts";
import { gateStandings, renderReport } from "../loop/report.ts";
import type { LoopState } from "../loop/state.ts";
import { type StrategyData, strategyData } from "../loop/strategies/strategy-data.ts";
import { type AppContext, readLoop } from "./app-context.ts";
import type { LoopReport, LoopReportMarkdown } from "./schemas/report-schemas.ts";

/** The report in Markdown. Throws `LoopNotFoundError`. */
export async function getReportMarkdown(context: AppContext, reference: string): Promise<LoopReportMarkdown> {
  const { loop, state, events } = await readLoop(context, reference);
  return { loopId: loop.id, markdown: renderReport(state, events) };
}

/** The report's data, as `report --json` prints it. Throws `LoopNotFoundError`. */
export async function getReportData(context: AppContext, reference: string): Promise<LoopReport> {
  const { state, events } = await readLoop(context, reference);
  const verdict = [...state.iterations].reverse().find((iteration) => iteration.verifier?.verdict)
    ?.verifier?.verdict;
  return {
    goal: state.spec.goal,
    ...summarizeLoop(state, events),
    gateStandings: gateStandings(state),
    strategy: loopStrategyData(state),
    verdict: verdict ?? null,
  };
}

/**
 * The strategy's part of the report's data (`report --json`'s `strategy`) for a replayed loop: the
 * dashboard shows exactly this, so the page and the report never disagree.
 */
export function loopStrategyData(state: LoopState): StrategyData {
  return strategyData(state);
}
