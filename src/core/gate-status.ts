/**
 * What a gate's results mean, given its policies and the base commit's results. Pure. A gate is
 * `pass`, `fail`, `flaky` (it passed and failed on the same commit) or `pending` (a run is still due).
 * - baseline `strict`: exit 0; `no-new-failures`: its failing tests are all among the baseline's;
 *   `must-improve`: that, and fewer of them (or none). A run that did not run the suite (`incomplete`)
 *   never passes, nor does a failing run of fewer tests than the base commit's.
 * - A red gate is run once more (`recheck`) before an iteration is spent on it: if it passes then, it is flaky.
 * - A green gate is re-run `rerun` times before `verified` (`confirm`, `confirm-2`, ...): a flip is flaky.
 * - A flaky gate blocks `verified` unless it says `flaky: report`.
 */
import type { GatePhase, GateResult } from "./events.ts";
import type { GateSpec } from "./spec.ts";

export type GateStatus = "pass" | "fail" | "flaky" | "pending";

export interface GateAssessment {
  status: GateStatus;
  /** The next run this gate needs, when `pending`. */
  due?: GatePhase;
  /** Failing tests the base commit did not have. */
  newFailures: string[];
  /** Failing tests that already failed on the base commit. */
  preexistingFailures: string[];
}

/** Whether one result passes under the gate's baseline policy. */
export function passesPolicy(gate: GateSpec, result: GateResult, baseline: GateResult | undefined): boolean {
  if (result.incomplete) return false;
  if (result.passed) return true;
  if (gate.baseline === "strict" || !baseline || result.timedOut) return false;
  // Failures the base commit had are accepted only from a run of at least as many tests.
  if (!result.rerunOnly && ranFewer(result, baseline)) return false;
  const failing = result.failures ?? [];
  if (failing.length === 0) return false;
  const before = new Set(baseline.failures ?? []);
  if (!failing.every((name) => before.has(name))) return false;
  return gate.baseline === "no-new-failures" || failing.length < before.size;
}

function ranFewer(result: GateResult, baseline: GateResult): boolean {
  return (
    result.testsExecuted !== undefined &&
    baseline.testsExecuted !== undefined &&
    result.testsExecuted < baseline.testsExecuted
  );
}

/** Whether an assessment lets the loop go on toward `verified` (a flaky gate only when it says `flaky: report`). */
export function isAcceptable(gate: GateSpec, assessment: GateAssessment): boolean {
  return assessment.status === "pass" || (assessment.status === "flaky" && gate.flaky === "report");
}
