/**
 * Facts about gates that reading a timeline needs (`show`, `report`), apart from spec.ts so that
 * reading loads no schema library. spec.ts re-exports them.
 */
import type { GateSpec } from "./spec.ts";

/** The always-on gate that stands for the verifier's overall approval; it cannot be removed. */
export const verifierGateId = "verifier-approves";

export function isDeterministic(gate: Pick<GateSpec, "kind">): boolean {
  return gate.kind !== "agent-check";
}
