/** The streak's section of the report: what the runs prove, per-test failure rates, which fix removed what. Pure. */
import type { LoopState } from "../state.ts";
import { type StreakStatistics, streakStatistics } from "./streak-statistics.ts";

export function streakReport(state: LoopState, passes: number): string[] {
  const stats = streakStatistics(state);
  const lines = ["## Streak", ""];
  lines.push(
    `${stats.fullRuns} full runs of the suite, ${stats.failedRuns} red; the last commit it ran on (\`${stats.finalSha?.slice(0, 12) ?? "none"}\`) ended with ${stats.finalStreak} consecutive passes (${passes} asked).`,
  );
  const proves = streakProofStatement(stats);
  if (proves) lines.push("", proves);
  if (stats.tests.length === 0) {
    lines.push("", "No run failed: the suite was stable, and nothing was changed.");
    return lines;
  }
  lines.push("", "| test | failed | of runs | rate | failed in | removed by |", "|---|---|---|---|---|---|");
  for (const test of stats.tests) {
    const where = test.failedIn.map((iteration) => (iteration === 0 ? "base" : `#${iteration}`)).join(", ");
    const account = test.removedBy === undefined ? undefined : accountOf(state, test.removedBy);
    const removed =
      test.removedBy === undefined
        ? "not removed"
        : `iteration ${test.removedBy}${account ? `: ${account}` : ""}`;
    lines.push(
      `| ${test.test} | ${test.failures} | ${test.runs} | ${(test.rate * 100).toFixed(0)}% | ${where} | ${removed} |`,
    );
  }
  return lines;
}

/** What the final clean streak proves (the 95% bound, the rule of three); undefined without one. */
export function streakProofStatement(stats: StreakStatistics): string | undefined {
  if (stats.failureRateBound === undefined) return undefined;
  const percent = (stats.failureRateBound * 100).toFixed(1);
  return `What this proves: 0 failures in ${stats.finalStreak} runs bounds that commit's failure rate below ${percent}% at 95% confidence (about 3/${stats.finalStreak}, the rule of three). It does not prove the flake is gone; more runs narrow the bound.`;
}

function accountOf(state: LoopState, iteration: number): string | undefined {
  const text = state.iterations.find((candidate) => candidate.number === iteration)?.maker?.account.trim();
  if (!text) return undefined;
  const line = text.replace(/\s+/g, " ").replaceAll("|", "/");
  return line.length > 120 ? `${line.slice(0, 119)}…` : line;
}
