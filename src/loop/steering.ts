/**
 * Steering: a user's change to a running loop (goal, gates, budget), filed by `loopwright steer` and
 * applied at the next iteration boundary, so an iteration is always graded on the spec it started with.
 * Pure: validates requests and computes the new spec with a record of old and new values.
 */
import type { SteeringChange, SteerRequest } from "../core/events.ts";
import { type Budget, budgetSchema, gateSchema, type Spec, verifierGateId } from "../core/spec.ts";
import { FieldError } from "../errors.ts";

const budgetKeys = Object.keys(budgetSchema.shape) as (keyof Budget)[];

/** What the user asked for, as typed: gates as parsed YAML, budget values as text or numbers. */
export interface SteerInput {
  goal?: string;
  addGates?: unknown[];
  removeGates?: string[];
  budget?: Record<string, string | number>;
}

/**
 * Checks what the user asked for against the spec it will apply to and parses it, once: the request it
 * returns holds gates with their defaults and durations in milliseconds, ready for `applySteering`.
 * Throws `FieldError` (naming the request field; a one-line message for the CLI) for a request that can never apply (removing the
 * verifier, an unknown gate or budget key, a bad gate or value).
 */
export function validateSteerRequest(spec: Spec, input: SteerInput): SteerRequest {
  const removeGates = input.removeGates ?? [];
  for (const id of removeGates) {
    if (id === verifierGateId)
      throw fieldError("removeGates", `${verifierGateId} cannot be removed: the verifier is always on`);
    if (!spec.gates.some((gate) => gate.id === id))
      throw fieldError("removeGates", `no gate '${id}' in loop ${spec.name}`);
  }
  const addGates = (input.addGates ?? []).map((raw, index) => {
    const parsed = gateSchema.safeParse(raw);
    if (!parsed.success) {
      const problem = parsed.error.issues[0];
      const path = problem.path.join(".");
      throw new FieldError(
        ["addGates", index, ...problem.path].join("."),
        problem.message,
        `--add-gate: ${path || "gate"}: ${problem.message}`,
      );
    }
    const remaining = spec.gates.filter((gate) => !removeGates.includes(gate.id));
    if (remaining.some((gate) => gate.id === parsed.data.id)) {
      const problem = `a gate '${parsed.data.id}' already exists`;
      throw new FieldError(`addGates.${index}.id`, problem, `--add-gate: ${problem}`);
    }
    return parsed.data;
  });
  const budget: Partial<Budget> = {};
  for (const [key, value] of Object.entries(input.budget ?? {})) {
    if (!budgetKeys.includes(key as keyof Budget)) {
      const problem = `unknown key '${key}' (known: ${budgetKeys.join(", ")})`;
      throw new FieldError(`budget.${key}`, problem, `--budget: ${problem}`);
    }
    const parsed = budgetSchema.shape[key as keyof Budget].safeParse(value);
    if (!parsed.success) {
      const problem = parsed.error.issues[0].message;
      throw new FieldError(`budget.${key}`, problem, `--budget: ${key}: ${problem}`);
    }
    Object.assign(budget, { [key]: parsed.data });
  }
  if (input.goal !== undefined && !input.goal.trim())
    throw new FieldError("goal", "the goal cannot be empty", "--goal: the goal cannot be empty");
  const request: SteerRequest = {};
  if (input.goal !== undefined) request.goal = input.goal;
  if (addGates.length > 0) request.addGates = addGates;
  if (removeGates.length > 0) request.removeGates = removeGates;
  if (Object.keys(budget).length > 0) request.budget = budget;
  return request;
}

/** A problem the CLI prints as is and the API reports on `field`. */
function fieldError(field: string, message: string): FieldError {
  return new FieldError(field, message, message);
}

/**
 * Applies pending requests in order; returns the new spec and each change with its old and new value.
 * The requests are already parsed (`validateSteerRequest`): nothing here parses a value again, so a
 * duration is never read twice (`2s` → 2000 ms, not 2000 s).
 */
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
    for (const gate of request.addGates ?? []) {
      if (next.gates.some((candidate) => candidate.id === gate.id)) continue;
      changes.push({ field: `gates.${gate.id}`, old: null, new: gate });
      next = { ...next, gates: [...next.gates, gate] };
    }
    for (const [key, value] of Object.entries(request.budget ?? {})) {
      const field = key as keyof Budget;
      if (!budgetKeys.includes(field)) continue;
      // Timelines written before requests were stored parsed hold a duration as text (`30m`).
      const parsed = typeof value === "string" ? budgetSchema.shape[field].safeParse(value).data : value;
      if (parsed === undefined || parsed === next.budget[field]) continue;
      changes.push({ field: `budget.${key}`, old: next.budget[field], new: parsed });
      next = { ...next, budget: { ...next.budget, [field]: parsed } };
    }
  }
  return { spec: next, changes };
}

export { describeUnappliedSteering } from "./unapplied-steering.ts";
