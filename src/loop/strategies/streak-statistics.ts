/**
 * What a streak loop's runs show, for the report, the brief and `report --json`: each test's observed
 * failures over all full runs, which iteration's change removed them, and what the final clean streak
 * proves. Pure.
 */
import type { LoopState } from "../state.ts";
import { type SuiteRun, suiteRuns } from "./suite-runs.ts";

export interface TestFailureRecord {
  /** `gate id › test name` when the gate's log named the test, else the gate id. */
  test: string;
  failures: number;
  runs: number;
  rate: number;
  /** The iterations whose runs it failed in (0: the base commit). */
  failedIn: number[];
  /** The iteration whose change it never failed after, when a later iteration ran the suite. */
  removedBy?: number;
}

export interface StreakStatistics {
  fullRuns: number;
  failedRuns: number;
  /** Consecutive green runs that end the list, on the last commit the suite ran on. */
  finalStreak: number;
  finalSha?: string;
  /** The 95% upper bound on the final commit's failure rate after `finalStreak` clean runs: 1 − 0.05^(1/N). */
  failureRateBound?: number;
  tests: TestFailureRecord[];
}

export function streakStatistics(state: LoopState): StreakStatistics {
  const runs = suiteRuns(state).filter((run) => run.complete);
  const counts = new Map<string, number[]>();
  for (const run of runs) {
    for (const name of failingTests(run)) counts.set(name, [...(counts.get(name) ?? []), run.iteration]);
  }
  const ranIn = [...new Set(runs.map((run) => run.iteration))];
  const tests = [...counts.entries()].map(([test, failedIn]) => {
    const last = Math.max(...failedIn);
    const removedBy = ranIn.find((iteration) => iteration > last);
    return {
      test,
      failures: failedIn.length,
      runs: runs.length,
      rate: failedIn.length / runs.length,
      failedIn: [...new Set(failedIn)],
      ...(removedBy === undefined ? {} : { removedBy }),
    };
  });
  tests.sort((left, right) => right.failures - left.failures || left.test.localeCompare(right.test));
  const finalSha = runs.at(-1)?.sha;
  let finalStreak = 0;
  for (
    let index = runs.length - 1;
    index >= 0 && runs[index].passed && runs[index].sha === finalSha;
    index -= 1
  )
    finalStreak += 1;
  return {
    fullRuns: runs.length,
    failedRuns: runs.filter((run) => !run.passed).length,
    finalStreak,
    finalSha,
    ...(finalStreak > 0 ? { failureRateBound: 1 - 0.05 ** (1 / finalStreak) } : {}),
    tests,
  };
}

function failingTests(run: SuiteRun): string[] {
  return Object.entries(run.failures).flatMap(([gateId, names]) =>
    names.map((name) => (name === gateId ? gateId : `${gateId} › ${name}`)),
  );
}
