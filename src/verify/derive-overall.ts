/**
 * The verifier's approval as loopwright derives it: `pass` only when the verifier said `pass` and every
 * required gate ruling and every tamper ruling allows it. A verifier's `overall` that disagrees with
 * its own rulings is not an invalid verdict: the rulings decide, and the disagreement is named. Pure.
 */
import type { Verdict } from "../core/events.ts";
import type { GateSpec } from "../core/spec.ts";

export interface DerivedOverall {
  overall: "pass" | "fail";
  /** Set when the verifier's `overall` and its rulings disagree, in one line a person reads. */
  disagreement?: string;
}

export function deriveOverall(verdict: Verdict, gates: readonly GateSpec[]): DerivedOverall {
  const required = new Set(gates.filter((gate) => gate.required).map((gate) => gate.id));
  const rejectedGates = verdict.gates.filter((ruling) => required.has(ruling.id) && !ruling.passed);
  const illegitimate = (verdict.tamper ?? []).filter((ruling) => !ruling.legitimate);
  const rulingsAllow = rejectedGates.length === 0 && illegitimate.length === 0;
  const overall = verdict.overall === "pass" && rulingsAllow ? "pass" : "fail";
  if (verdict.overall === "pass" && !rulingsAllow) {
    const named = [
      ...rejectedGates.map((ruling) => `gate ${ruling.id}`),
      ...illegitimate.map((ruling) => `flag ${ruling.id}`),
    ];
    return { overall, disagreement: `its overall said pass, but it rejected ${named.join(", ")}` };
  }
  if (verdict.overall === "fail" && rulingsAllow) {
    return {
      overall,
      disagreement: "its overall said fail, though every required gate and flag ruling allows",
    };
  }
  return { overall };
}
