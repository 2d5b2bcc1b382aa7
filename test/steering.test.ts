import assert from "node:assert/strict";
import { test } from "node:test";
import { UsageError } from "../src/errors.ts";
import { applySteering, validateSteerRequest } from "../src/loop/steering.ts";
import { fakeSpec } from "./support/fake-loop.ts";

const spec = fakeSpec();
const types = { id: "types", kind: "build-succeeds", run: "npx tsc --noEmit" };

function refused(request: Parameters<typeof validateSteerRequest>[1], message: RegExp): void {
  assert.throws(
    () => validateSteerRequest(spec, request),
    (error: unknown) =>
      error instanceof UsageError && message.test(error.message) && !error.message.includes("\n"),
  );
}

test("removing the verifier is refused", () => {
  refused(
    { removeGates: ["verifier-approves"] },
    /verifier-approves cannot be removed: the verifier is always on/,
  );
});

test("removing a gate the loop does not have is refused", () => {
  refused({ removeGates: ["typo"] }, /no gate 'typo' in loop fix-parser/);
});

test("adding a bad gate is refused with the field at fault", () => {
  refused(
    { addGates: [{ id: "types", kind: "build-succeeds" }] },
    /--add-gate: run: required for kind build-succeeds/,
  );
  refused({ addGates: [{ id: "types", kind: "compiles", run: "tsc" }] }, /--add-gate: kind:/);
  refused({ addGates: ["just a string"] }, /--add-gate: gate:/);
  refused({ addGates: [{ ...types, timout: "5m" }] }, /--add-gate: .*timout/);
  refused(
    { addGates: [{ ...types, id: "verifier-approves" }] },
    /--add-gate: id: verifier-approves is built in/,
  );
});

test("adding a gate whose id is taken is refused, unless the same request removes the old one", () => {
  refused({ addGates: [{ ...types, id: "lint" }] }, /--add-gate: a gate 'lint' already exists/);
  const replaced = validateSteerRequest(spec, {
    removeGates: ["lint"],
    addGates: [{ ...types, id: "lint" }],
  });
  assert.equal(replaced.addGates?.length, 1);
});

test("an unknown budget key or a bad budget value is refused", () => {
  refused({ budget: { maxIterationz: 5 } }, /--budget: unknown key 'maxIterationz' \(known: maxIterations, /);
  refused({ budget: { maxIterations: "lots" } }, /--budget: maxIterations:/);
  refused({ budget: { maxIterations: -1 } }, /--budget: maxIterations:/);
  refused(
    { budget: { wallClockPerIteration: "forever" } },
    /--budget: wallClockPerIteration: not a duration/,
  );
});

test("an empty goal is refused", () => {
  refused({ goal: "   " }, /--goal: the goal cannot be empty/);
});

test("a valid request comes back with its gates parsed and their defaults filled in", () => {
  const request = validateSteerRequest(spec, {
    goal: "The printer tests pass too.",
    addGates: [types],
    budget: { maxIterations: 6, wallClockPerIteration: "30m" },
  });
  assert.deepEqual(request.addGates, [
    {
      ...types,
      timeout: 600_000,
      required: true,
      parallel: true,
      baseline: "strict",
      flaky: "block",
      rerun: 1,
    },
  ]);
  assert.equal(request.goal, "The printer tests pass too.");
  assert.deepEqual(request.budget, { maxIterations: 6, wallClockPerIteration: 1_800_000 });
});

test("a validated request applies as it was parsed: a duration is never read twice", () => {
  const request = validateSteerRequest(spec, {
    addGates: [{ ...types, timeout: "2s" }],
    budget: { wallClockPerIteration: "30s" },
  });
  const { spec: next } = applySteering(spec, [request]);
  assert.equal(next.gates.find((gate) => gate.id === "types")?.timeout, 2000);
  assert.equal(next.budget.wallClockPerIteration, 30_000);
});

test("applySteering records every change with its old and new value and leaves the input spec alone", () => {
  const before = structuredClone(spec);
  const { spec: next, changes } = applySteering(spec, [
    validateSteerRequest(spec, { goal: "The printer tests pass too.", removeGates: ["lint"] }),
    validateSteerRequest(spec, {
      addGates: [types],
      budget: { maxIterations: 6, wallClockPerIteration: "30m" },
    }),
  ]);
  assert.deepEqual(spec, before);
  assert.equal(next.goal, "The printer tests pass too.");
  assert.deepEqual(
    next.gates.map((gate) => gate.id),
    ["tests", "types"],
  );
  assert.equal(next.budget.maxIterations, 6);
  assert.equal(next.budget.wallClockPerIteration, 1_800_000);
  const lint = spec.gates[1];
  assert.deepEqual(changes, [
    { field: "goal", old: "The parser tests pass.", new: "The printer tests pass too." },
    { field: "gates.lint", old: lint, new: null },
    {
      field: "gates.types",
      old: null,
      new: {
        ...types,
        timeout: 600_000,
        required: true,
        parallel: true,
        baseline: "strict",
        flaky: "block",
        rerun: 1,
      },
    },
    { field: "budget.maxIterations", old: 3, new: 6 },
    { field: "budget.wallClockPerIteration", old: 3_600_000, new: 1_800_000 },
  ]);
});

test("requests apply in order, and a value that does not change anything is not recorded", () => {
  const { spec: next, changes } = applySteering(spec, [
    { budget: { maxIterations: 5 } },
    { budget: { maxIterations: 8 } },
    { goal: spec.goal, budget: { maxCostUsdPerDay: spec.budget.maxCostUsdPerDay } },
  ]);
  assert.equal(next.budget.maxIterations, 8);
  assert.deepEqual(changes, [
    { field: "budget.maxIterations", old: 3, new: 5 },
    { field: "budget.maxIterations", old: 5, new: 8 },
  ]);
});
