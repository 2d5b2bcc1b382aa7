/**
 * Steering: a user's change to a running loop (goal, gates, budget), filed by `loopwright steer` and
 * applied at the next iteration boundary, so an iteration is always graded on the spec it started with.
 * Pure: validates requests and computes the new spec with a record of old and new values.
 */
import { UsageError } from "../errors.ts";
import type { SteeringChange, SteerRequest } from "./events.ts";
import { budgetSchema, gateSchema, type Spec, verifierGateId } from "./spec.ts";

const budgetKeys = Object.keys(budgetSchema.shape) as (keyof Spec["budget"])[];

/**
 * Checks a request against the spec it will apply to; throws `UsageError` with a one-line message for a
 * request that can never apply (removing the verifier, an unknown gate or budget key, a bad gate).
 */
export function validateSteerRequest(spec: Spec, request: SteerRequest): SteerRequest {
  const removeGates = request.removeGates ?? [];
  for (const id of removeGates) {
    if (id === verifierGateId)
      throw new UsageError(`${verifierGateId} cannot be removed: the verifier is always on`);
    if (!spec.gates.some((gate) => gate.id === id))
      throw new UsageError(`no gate '${id}' in loop ${spec.name}`);
  }
  const addGates = (request.addGates ?? []).map((raw) => {
    const parsed = gateSchema.safeParse(raw);
    if (!parsed.success) {
      const problem = parsed.error.issues[0];
      throw new UsageError(`--add-gate: ${problem.path.join(".") || "gate"}: ${problem.message}`);
    }
    const remaining = spec.gates.filter((gate) => !removeGates.includes(gate.id));
    if (remaining.some((gate) => gate.id === parsed.data.id)) {
      throw new UsageError(`--add-gate: a gate '${parsed.data.id}' already exists`);
    }
    return parsed.data;
  });
  for (const [key, value] of Object.entries(request.budget ?? {})) {
    if (!budgetKeys.includes(key as keyof Spec["budget"])) {
      throw new UsageError(`--budget: unknown key '${key}' (known: ${budgetKeys.join(", ")})`);
    }
    // applySteering skips a value that does not parse, so refuse it here rather than drop it silently.
    const parsed = budgetSchema.shape[key as keyof Spec["budget"]].safeParse(value);
    if (!parsed.success) throw new UsageError(`--budget: ${key}: ${parsed.error.issues[0].message}`);
  }
  if (request.goal !== undefined && !request.goal.trim())
    throw new UsageError("--goal: the goal cannot be empty");
  return { ...request, addGates };
}

/** Applies pending requests in order; returns the new spec and each change with its old and new value. */
export function applySteering(
  spec: Spec,
  requests: SteerRequest[],
): { spec: Spec; changes: SteeringChange[] } {
  let next: Spec = structuredClone(spec);
  const changes: SteeringChange[] = [];
  for (const request of requests) {
    if (request.goal !== undefined && request.goal !== next.goal) {
      changes.push({ field: "goal", old: next.goal, new: request.goal });
      next = { ...next, goal: request.goal };
    }
    for (const id of request.removeGates ?? []) {
      const gate = next.gates.find((candidate) => candidate.id === id);
      if (!gate) continue;
      changes.push({ field: `gates.${id}`, old: gate, new: null });
      next = { ...next, gates: next.gates.filter((candidate) => candidate.id !== id) };
    }
    for (const raw of request.addGates ?? []) {
      const gate = gateSchema.parse(raw);
      if (next.gates.some((candidate) => candidate.id === gate.id)) continue;
      changes.push({ field: `gates.${gate.id}`, old: null, new: gate });
      next = { ...next, gates: [...next.gates, gate] };
    }
    for (const [key, value] of Object.entries(request.budget ?? {})) {
      const field = key as keyof Spec["budget"];
      const parsed = budgetSchema.shape[field].safeParse(value);
      if (!parsed.success || parsed.data === next.budget[field]) continue;
      changes.push({ field: `budget.${key}`, old: next.budget[field], new: parsed.data });
      next = { ...next, budget: { ...next.budget, [field]: parsed.data } };
    }
  }
  return { spec: next, changes };
}
