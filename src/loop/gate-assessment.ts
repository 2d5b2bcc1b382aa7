/**
 * A gate's status in one iteration, from the iteration's runs of it (grade, recheck, confirmation
 * re-runs) under the gate's policies (see `passesPolicy` in core/gate-status.ts). Pure.
 */
import { confirmPhase, type GateResult } from "../core/events.ts";
import { type GateAssessment, isAcceptable, passesPolicy } from "../core/gate-status.ts";
import type { GateSpec } from "../core/spec.ts";
import { type IterationState, phaseResults } from "./state.ts";

/**
 * Assesses a gate through the grade phase only (`confirm: false`), or through its confirmation re-runs too.
 */
export function assessGate(
  gate: GateSpec,
  iteration: IterationState,
  baseline: GateResult | undefined,
  options: { confirm: boolean },
): GateAssessment {
  const graded = phaseResults(iteration, "grade")[gate.id];
  if (!graded) return { status: "pending", due: "grade", newFailures: [], preexistingFailures: [] };
  const before = new Set(baseline?.failures ?? []);
  const failing = graded.passed ? [] : (graded.failures ?? []);
  const split = {
    newFailures: failing.filter((name) => !before.has(name)),
    preexistingFailures: failing.filter((name) => before.has(name)),
  };
  if (!passesPolicy(gate, graded, baseline)) {
    const recheck = phaseResults(iteration, "recheck")[gate.id];
    if (!recheck) return { status: "pending", due: "recheck", ...split };
    return { status: passesPolicy(gate, recheck, baseline) ? "flaky" : "fail", ...split };
  }
  if (!options.confirm) return { status: "pass", ...split };
  for (let round = 1; round <= gate.rerun; round += 1) {
    const phase = confirmPhase(round);
    const confirmed = phaseResults(iteration, phase)[gate.id];
    if (!confirmed) return { status: "pending", due: phase, ...split };
    if (!passesPolicy(gate, confirmed, baseline)) return { status: "flaky", ...split };
  }
  return { status: "pass", ...split };
}

/**
 * Whether a gate's graded run counts as passed, which is what a verifier may approve: exit 0, failures
 * its baseline policy accepts, or a failure that did not reproduce on the recheck of a gate that says
 * `flaky: report`. False when the gate has no graded run.
 */
export function countsAsPassed(
  gate: GateSpec,
  iteration: IterationState,
  baseline: GateResult | undefined,
): boolean {
  const graded = phaseResults(iteration, "grade")[gate.id];
  if (!graded) return false;
  if (passesPolicy(gate, graded, baseline)) return true;
  return isAcceptable(gate, assessGate(gate, iteration, baseline, { confirm: false }));
}
