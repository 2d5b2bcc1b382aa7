/**
 * The streak's part of the maker's brief: what the suite did so far, and on the first iteration the
 * digest of the red run on the base commit (later iterations get their own red runs' digests from the
 * brief's "what happened" section). Never the logs. Pure.
 */
import { cap } from "../../core/cap-text.ts";
import type { StreakStrategy } from "../../core/strategy-spec.ts";
import type { LoopState } from "../state.ts";
import { streakStatistics } from "./streak-statistics.ts";
import { suiteRuns } from "./suite-runs.ts";

const digestLimit = 32 * 1024;

/** `digests` are keyed `phase:gate id`, as the brief's. */
export function streakBrief(
  state: LoopState,
  streak: StreakStrategy,
  baseDigests: Record<string, string> = {},
): string {
  const stats = streakStatistics(state);
  const lines = [
    `## Streak: the suite must pass ${streak.passes} times in a row`,
    "This suite is flaky: it passed and failed without a change. Find the race, the shared state or the " +
      "nondeterminism, and make the suite deterministic. Never skip, retry, loosen or delete a test: " +
      `loopwright flags that. Your commit must then pass ${streak.passes} consecutive full runs; ` +
      `${stats.fullRuns} of at most ${streak.maxRuns} full runs are spent.`,
  ];
  if (stats.tests.length > 0) {
    lines.push("Failures observed so far:");
    for (const test of stats.tests.slice(0, 20))
      lines.push(`- ${test.test}: failed ${test.failures} of ${test.runs} runs`);
  }
  const redBase = suiteRuns(state)
    .filter((run) => run.iteration === 0 && !run.passed)
    .at(-1);
  if (state.iterations.length === 0 && redBase) {
    for (const result of redBase.results.filter((candidate) => !candidate.passed)) {
      const digest = baseDigests[`${result.phase}:${result.id}`];
      lines.push(
        `\n### Gate ${result.id} failed on the base commit (${result.phase} run, exit ${result.exitCode})\nCommand: \`${result.command}\`\nFull log: ${result.logPath}\n` +
          "```\n" +
          (digest ? cap(digest, digestLimit) : cap(result.tail, 3000, "start")) +
          "\n```",
      );
    }
  }
  return lines.join("\n");
}
