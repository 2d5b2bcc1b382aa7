/**
 * The full-suite runs of a loop, read from its gate results: every run of the deterministic gates on
 * the base commit (baseline, confirm, confirm-2, ...) and in each iteration (grade, confirm, ...), in
 * the order they ran. A `recheck` reruns only failing tests, so it is not a full run. Pure.
 */
import { confirmPhase, type GatePhase, type GateResult } from "../../core/events.ts";
import { isDeterministic } from "../../core/gate-facts.ts";
import type { Spec } from "../../core/spec.ts";
import type { LoopState } from "../state.ts";

export interface SuiteRun {
  /** 0 for the base commit. */
  iteration: number;
  phase: GatePhase;
  sha: string;
  /** Every required deterministic gate ran and passed (exit 0, the suite ran). */
  passed: boolean;
  /** Every required deterministic gate has a result in this run. */
  complete: boolean;
  /** Failing test names per red gate (the gate id alone when its log named no test). */
  failures: Record<string, string[]>;
  results: GateResult[];
}

/** The phases of full runs, in order: the first (baseline or grade), then confirm, confirm-2, ... */
function fullRunPhases(first: GatePhase, results: Partial<Record<GatePhase, unknown>>): GatePhase[] {
  const phases: GatePhase[] = [];
  if (results[first]) phases.push(first);
  for (let round = 1; results[confirmPhase(round)]; round += 1) phases.push(confirmPhase(round));
  return phases;
}

export function suiteRuns(state: LoopState): SuiteRun[] {
  const runs: SuiteRun[] = [];
  const base = state.baseRuns.gates;
  for (const phase of fullRunPhases("baseline", base))
    runs.push(runOf(state.spec, 0, phase, base[phase] ?? {}));
  for (const iteration of state.iterations) {
    for (const phase of fullRunPhases("grade", iteration.gates))
      runs.push(runOf(state.spec, iteration.number, phase, iteration.gates[phase] ?? {}));
  }
  return runs;
}

function runOf(
  spec: Spec,
  iteration: number,
  phase: GatePhase,
  byGate: Record<string, GateResult>,
): SuiteRun {
  const required = spec.gates.filter((gate) => gate.required && isDeterministic(gate));
  const results = required.flatMap((gate) => (byGate[gate.id] ? [byGate[gate.id]] : []));
  const failures: Record<string, string[]> = {};
  for (const result of results) {
    if (result.passed) continue;
    failures[result.id] = result.failures?.length ? result.failures : [result.id];
  }
  return {
    iteration,
    phase,
    sha: results[0]?.sha ?? "",
    passed: results.length === required.length && results.every((result) => result.passed),
    complete: results.length === required.length,
    failures,
    results,
  };
}

/** How many green complete runs end the list, back to the last red one. */
export function trailingPasses(runs: readonly SuiteRun[]): number {
  let count = 0;
  for (let index = runs.length - 1; index >= 0 && runs[index].passed; index -= 1) count += 1;
  return count;
}
