/**
 * A test gate's run that did not run the suite never passes: no test ran, pytest interrupted or found
 * nothing, a runner killed by a signal or crashed, a failing run of fewer tests than the base commit's.
 */
import assert from "node:assert/strict";
import { test } from "node:test";
import type { GateResult } from "../src/core/events.ts";
import { passesPolicy } from "../src/core/gate-status.ts";
import { gateSchema } from "../src/core/spec.ts";
import { incompleteRunReason } from "../src/gates/incomplete-run.ts";

const run = (overrides: Partial<Parameters<typeof incompleteRunReason>[0]>) =>
  incompleteRunReason({
    kind: "tests-pass",
    command: "npm test",
    exitCode: 0,
    timedOut: false,
    runners: [],
    tail: "",
    ...overrides,
  });

test("runs that ran nothing, were interrupted or crashed are named; a real run is not", () => {
  assert.equal(run({ testsExecuted: 0, runners: ["node-test"] }), "no test ran (the runner counted 0 tests)");
  for (const code of [2, 3, 4, 5]) {
    assert.match(
      run({ exitCode: code, command: "python3 -m pytest -q" }) ?? "",
      new RegExp(`^pytest exit ${code}: `),
    );
    assert.match(run({ exitCode: code, runners: ["pytest"], command: "make check" }) ?? "", /^pytest exit/);
  }
  assert.equal(
    run({ exitCode: 2, command: "node --test" }),
    undefined,
    "exit 2 is only pytest's interruption",
  );
  assert.match(run({ exitCode: null }) ?? "", /killed by a signal/);
  assert.match(run({ exitCode: 137 }) ?? "", /crashed \(exit 137: killed by signal 9\)/);
  assert.match(
    run({ tail: "\n----\nRan 0 tests in 0.000s\n\nNO TESTS RAN\n" }) ?? "",
    /unittest ran no test/,
  );
  assert.match(run({ exitCode: 1, tail: "No tests found, exiting with code 1\n" }) ?? "", /jest/);
  assert.match(run({ exitCode: 1, tail: "No test files found, exiting with code 1\n" }) ?? "", /vitest/);
  assert.match(run({ tail: "s.\n1 passed, 1 skipped in 0.02s\n" }) ?? "none", /none/);
  assert.match(run({ tail: "ss\n2 skipped in 0.02s\n" }) ?? "", /every test was skipped/);
  assert.equal(run({ testsExecuted: 3, runners: ["node-test"] }), undefined);
  assert.equal(run({ exitCode: 1, testsExecuted: 3 }), undefined);
  assert.equal(run({ kind: "lint-clean", testsExecuted: 0 }), undefined, "only test gates are judged");
  assert.equal(run({ exitCode: null, timedOut: true }), undefined, "a timeout fails on its own");
});

const result = (overrides: Partial<GateResult>): GateResult => ({
  id: "tests",
  kind: "tests-pass",
  command: "pytest",
  phase: "grade",
  sha: "c".repeat(40),
  exitCode: 1,
  passed: false,
  timedOut: false,
  durationMs: 1,
  logPath: "/l",
  tail: "",
  survivorsKilled: 0,
  ...overrides,
});

test("no baseline policy passes an incomplete run or a failing run of fewer tests than the base commit's", () => {
  const collectionErrors = result({
    exitCode: 2,
    failures: ["tests/test_x.py"],
    incomplete: "pytest exit 2: ...",
  });
  for (const policy of ["strict", "no-new-failures", "must-improve"] as const) {
    const gate = gateSchema.parse({ id: "tests", kind: "tests-pass", run: "pytest", baseline: policy });
    assert.equal(
      passesPolicy(gate, collectionErrors, { ...collectionErrors, phase: "baseline" }),
      false,
      policy,
    );
    const ranNothing = result({ exitCode: 0, passed: false, testsExecuted: 0, incomplete: "no test ran" });
    assert.equal(
      passesPolicy(gate, ranNothing, result({ phase: "baseline", failures: ["a"] })),
      false,
      policy,
    );
  }
  const gate = gateSchema.parse({
    id: "tests",
    kind: "tests-pass",
    run: "pytest",
    baseline: "no-new-failures",
  });
  const baseline = result({ phase: "baseline", failures: ["a", "b"], testsExecuted: 10 });
  assert.equal(passesPolicy(gate, result({ failures: ["a"], testsExecuted: 10 }), baseline), true);
  assert.equal(passesPolicy(gate, result({ failures: ["a"], testsExecuted: 4 }), baseline), false);
});
