/**
 * `fewer-tests-executed`: the gates ran fewer tests than the baseline did on the base commit. Pure.
 */

import type { TamperFlag } from "../../core/tamper-flag.ts";

/**
 * A flag when `current` (tests executed at the graded commit) is below `baseline` (tests executed at the
 * base commit); `undefined` when either count is unknown or none were lost. Counts are whole numbers of
 * tests as the runner reports them (run, passed or failed: whatever the caller counts, the same way twice).
 */
export function compareTestCounts(
  baseline: number | undefined,
  current: number | undefined,
): TamperFlag | undefined {
  if (baseline === undefined || current === undefined) return undefined;
  if (!Number.isFinite(baseline) || !Number.isFinite(current) || current >= baseline) return undefined;
  const lost = baseline - current;
  return {
    kind: "fewer-tests-executed",
    detail: `${current} tests executed, ${lost} fewer than the ${baseline} of the baseline`,
  };
}
