/**
 * Whether a test gate's run really ran the suite. A run that executed no test, was interrupted (pytest
 * exits 2, 3, 4 or 5; a runner killed by a signal) or found nothing to run proves nothing, whatever its
 * exit code: it never passes, under any baseline policy, and its collection errors are not "failures
 * that predate the loop". Only `tests-pass` gates are judged; other kinds print no test counts. Pure.
 */
import type { RunnerName } from "./digest/digest-types.ts";

/** What the judgement reads of one finished gate run. */
export interface FinishedRun {
  kind: string;
  command: string;
  exitCode: number | null;
  timedOut: boolean;
  /** Runners the log's digest recognized. */
  runners: readonly RunnerName[];
  /** Tests the runners counted, when they print a count. */
  testsExecuted?: number;
  /** The end of the run's output. */
  tail: string;
}

const pytestExits: Readonly<Record<number, string>> = {
  2: "pytest exit 2: the run was interrupted (collection errors or Ctrl-C)",
  3: "pytest exit 3: internal error",
  4: "pytest exit 4: usage error (a bad option or a path that does not exist)",
  5: "pytest exit 5: no tests were collected",
};

/** Runners' own words for a run that found nothing to run, when they print no count. */
const nothingRan: readonly [RegExp, string][] = [
  [/^NO TESTS RAN\b/m, "unittest ran no test"],
  [/\bno tests ran in [\d.]+s\b/, "pytest ran no test"],
  [/^No tests found, exiting with code/m, "jest found no test"],
  [/^No test files found, exiting with code/m, "vitest found no test file"],
  [
    /^=*\s*(?:\d+ (?:skipped|deselected|xfailed|warnings?),? )+in [\d.]+s\b(?![\s\S]*\b(?:passed|failed)\b)/m,
    "pytest ran no test: every test was skipped, deselected or xfailed",
  ],
];

/** Why the run does not count as a run of the suite, in one line; `undefined` when it does. */
export function incompleteRunReason(run: FinishedRun): string | undefined {
  if (run.kind !== "tests-pass" || run.timedOut) return undefined;
  if (run.exitCode === null) return "the test runner was killed by a signal before it finished";
  if (run.exitCode >= 128)
    return `the test runner crashed (exit ${run.exitCode}: killed by signal ${run.exitCode - 128})`;
  const pytest = run.runners.includes("pytest") || /\bpytest\b/.test(run.command);
  if (pytest && pytestExits[run.exitCode]) return pytestExits[run.exitCode];
  if (run.testsExecuted === 0) return "no test ran (the runner counted 0 tests)";
  if (run.testsExecuted === undefined) {
    const found = nothingRan.find(([pattern]) => pattern.test(run.tail));
    if (found) return found[1];
  }
  return undefined;
}
