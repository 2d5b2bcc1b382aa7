/**
 * The deterministic floor in `decide()`: blocking tamper flags fail the iteration whatever the verifier
 * rules, with a precise reason; advisory and accepted flags go to the verifier; loopwright computes the
 * run-based flags itself; a verifier's `overall` that disagrees with its rulings is derived, not invalid.
 */
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { specSchema } from "../src/core/spec.ts";
import type { Action } from "../src/loop/decide.ts";
import { FakeLoop, fakeSpec } from "./support/fake-loop.ts";

function ended(action: Action) {
  assert.equal(action.kind, "end_iteration", JSON.stringify(action));
  return action as Extract<Action, { kind: "end_iteration" }>;
}

const tests = { id: "tests", kind: "tests-pass", run: "node --test" };

/** An iteration whose gates are all green, screened with `files` changed. */
function greenIteration(spec = fakeSpec({ gates: [tests] }), files = ["src/parse.ts", "test/parse.test.ts"]) {
  const loop = new FakeLoop(spec).prepared().iteration().makerEnded().committed(files).screened();
  return loop;
}

describe("blocking tamper flags", () => {
  for (const kind of [
    "skip-marker-added",
    "assertion-deleted",
    "test-deleted",
    "tests-excluded",
    "test-renamed-out",
    "threshold-loosened",
    "baseline-failure-not-executed",
    "secret-in-change",
  ]) {
    test(`a ${kind} flag fails the iteration with green gates, before any verifier runs, naming the flag`, () => {
      const loop = greenIteration();
      loop.flagged("tamper-file", { file: "test/parse.test.ts", detail: "test file changed" });
      loop.flagged(kind, { file: "test/parse.test.ts", line: 12, detail: `the ${kind} evidence` });
      loop.gatesPassed();
      const end = ended(loop.decide());
      assert.equal(end.outcome, "failed");
      assert.match(end.summary, new RegExp(`T2 ${kind} at test/parse\\.test\\.ts:12: the ${kind} evidence`));
      assert.doesNotMatch(end.summary, /T1/, "the advisory flag is not a reason to fail");
      assert.deepEqual(end.failingGates, ["tamper"]);
      assert.ok(end.fingerprint, "a tamper failure counts toward no-progress like any failure");
      assert.equal(loop.state().iterations[0].verifier, undefined);
    });
  }

  test("a blocking flag fails the iteration even on a timeline where the verifier already approved it", () => {
    const loop = greenIteration();
    loop.flagged("skip-marker-added", { file: "test/parse.test.ts", line: 3 });
    loop.gatesPassed().verifierEnded("ruled", {
      verdict: {
        overall: "pass",
        gates: [{ id: "tests", passed: true, evidence: [{ file: "src/parse.ts" }] }],
        tamper: [{ id: "T1", legitimate: true, reason: "the test was flaky anyway" }],
      },
    });
    loop.gatesPassed("confirm");
    const end = ended(loop.decide());
    assert.equal(end.outcome, "failed");
    assert.match(end.summary, /T1 skip-marker-added at test\/parse\.test\.ts:3/);
  });

  test("a red gate and a blocking flag: the summary names both", () => {
    const loop = new FakeLoop(fakeSpec({ gates: [tests] })).prepared().iteration().makerEnded();
    loop.committed().screened().flagged("test-deleted", { file: "test/a.test.js", line: 5 });
    loop.gateFailed("tests");
    const end = ended(loop.decide());
    assert.match(
      end.summary,
      /gates failed: tests; blocked by tamper flags .*T1 test-deleted at test\/a\.test\.js:5/,
    );
    assert.deepEqual(end.failingGates, ["tamper", "tests"]);
  });

  test("advisory flags (a changed test file, inline tests) go to the verifier", () => {
    const loop = greenIteration();
    loop
      .flagged("tamper-file", { file: "test/parse.test.ts" })
      .flagged("inline-tests-changed", { file: "src/lib.rs" });
    loop.gatesPassed();
    assert.deepEqual(loop.decide(), { kind: "run_verifier", iteration: 1 });
  });

  test("a flag kind this version does not know is blocking", () => {
    const loop = greenIteration().flagged("quantum-tamper").gatesPassed();
    assert.match(ended(loop.decide()).summary, /T1 quantum-tamper/);
  });
});

describe("tamper.accept", () => {
  const accepting = (accept: string[]) =>
    fakeSpec({ gates: [tests], tamper: { accept, reason: "the old test asserted the bug" } });

  test("an accepted blocking class goes to the verifier, which then rules on it", () => {
    for (const name of ["skip-marker", "skip-marker-added"]) {
      const loop = greenIteration(accepting([name])).flagged("skip-marker-added", { file: "t.py", line: 2 });
      loop.gatesPassed();
      assert.deepEqual(loop.decide(), { kind: "run_verifier", iteration: 1 }, name);
      loop.verifierEnded("ruled", {
        verdict: {
          overall: "pass",
          gates: [{ id: "tests", passed: true, evidence: [{ file: "t.py" }] }],
          tamper: [{ id: "T1", legitimate: true, reason: "explained" }],
        },
      });
      loop.gatesPassed("confirm");
      const end = ended(loop.decide());
      assert.equal(end.outcome, "verified", name);
      assert.match(end.summary, /; 1 tamper flag ruled legitimate by the verifier: T1$/);
    }
  });

  test("accepting one class does not accept another", () => {
    const loop = greenIteration(accepting(["skip-marker"])).flagged("test-deleted", {
      file: "t.py",
      line: 2,
    });
    loop.gatesPassed();
    assert.match(ended(loop.decide()).summary, /T1 test-deleted/);
  });

  test("the spec rejects unknown names, advisory kinds, secrets, and an acceptance without a reason", () => {
    const base = { name: "x", goal: "g", maker: { engine: "command", run: "./a.sh" } };
    const problems = (tamper: unknown) => {
      const parsed = specSchema.safeParse({ ...base, tamper });
      return parsed.success
        ? []
        : parsed.error.issues.map((issue) => `${issue.path.join(".")}: ${issue.message}`);
    };
    assert.deepEqual(problems({ accept: ["skip-marker"], reason: "legacy markers are moved" }), []);
    assert.deepEqual(problems({ accept: [] }), []);
    assert.match(
      problems({ accept: ["skip-markers"], reason: "r" }).join("\n"),
      /tamper\.accept\.0: unknown tamper class 'skip-markers' \(known: skip-marker,/,
    );
    assert.match(
      problems({ accept: ["tamper-file"], reason: "r" }).join("\n"),
      /tamper\.accept\.0: 'tamper-file' is advisory already/,
    );
    assert.match(problems({ accept: ["secret-in-change"], reason: "r" }).join("\n"), /cannot be accepted/);
    assert.match(
      problems({ accept: ["skip-marker"] }).join("\n"),
      /tamper\.reason: required when accept is not empty/,
    );
    assert.match(problems({ accept: ["skip-marker"], reason: "r", silently: true }).join("\n"), /silently/);
  });
});

describe("flags computed from the runs", () => {
  test("fewer tests executed than on the base commit is blocking", () => {
    const loop = new FakeLoop(fakeSpec({ gates: [tests] })).prepared({ counts: { tests: 10 } });
    loop.iteration().makerEnded().committed().screened().gatePassed("tests", "grade", { testsExecuted: 9 });
    const action = loop.decide();
    assert.equal(action.kind, "record_flags");
    const { flags } = action as Extract<Action, { kind: "record_flags" }>;
    loop.append("tamper_flagged", { iteration: 1, flag: flags[0] });
    assert.match(
      ended(loop.decide()).summary,
      /C-tests fewer-tests-executed: gate tests: 9 tests executed, 1 fewer/,
    );
  });

  test("a base failure made to pass by a change to test files only is a blocking test-only-fix", () => {
    const loop = new FakeLoop(fakeSpec({ gates: [tests] })).prepared({ baseline: { tests: ["add sums"] } });
    loop.iteration().makerEnded().committed(["test/add.test.js"]).screened().gatePassed("tests");
    const action = loop.decide();
    assert.equal(action.kind, "record_flags", JSON.stringify(action));
    const { flags } = action as Extract<Action, { kind: "record_flags" }>;
    assert.deepEqual(
      flags.map((flag) => [flag.id, flag.kind, flag.detail]),
      [
        [
          "F-tests",
          "test-only-fix",
          "gate tests failed on the base commit and passes now, and the change touched only test files: add sums",
        ],
      ],
    );
    for (const flag of flags) loop.append("tamper_flagged", { iteration: 1, flag });
    assert.match(ended(loop.decide()).summary, /F-tests test-only-fix/);
  });

  test("the same fix touching the code under test too is no test-only-fix", () => {
    const loop = new FakeLoop(fakeSpec({ gates: [tests] })).prepared({ baseline: { tests: ["add sums"] } });
    loop
      .iteration()
      .makerEnded()
      .committed(["src/calc.js", "test/add.test.js"])
      .screened()
      .gatePassed("tests");
    assert.deepEqual(loop.decide(), { kind: "run_verifier", iteration: 1 });
  });
});

describe("the verifier's overall", () => {
  const rollback = { id: "rollback", kind: "agent-check", assert: "It can be rolled back." };
  const perf = { id: "perf", kind: "eval-script", run: "node perf.js", required: false };

  test("an overall of fail over rulings that only reject a non-required gate fails, naming the disagreement", () => {
    const loop = greenIteration(fakeSpec({ gates: [tests, perf] })).gatesPassed();
    loop.verifierEnded("ruled", {
      verdict: {
        overall: "fail",
        gates: [
          { id: "tests", passed: true, evidence: [{ file: "src/parse.ts" }] },
          { id: "perf", passed: false, reason: "slower", evidence: [] },
        ],
      },
    });
    const end = ended(loop.decide());
    assert.equal(end.outcome, "failed");
    assert.match(end.summary, /the verifier did not approve/);
    assert.deepEqual(end.failingGates, ["perf", "verifier-approves"]);
  });

  test("an overall of pass over a rejected required gate is derived as fail, not an infrastructure error", () => {
    const loop = greenIteration(fakeSpec({ gates: [tests, rollback] })).gatesPassed();
    loop.verifierEnded("ruled", {
      verdict: {
        overall: "pass",
        gates: [
          { id: "tests", passed: true, evidence: [{ file: "src/parse.ts" }] },
          { id: "rollback", passed: false, reason: "no down migration", evidence: [] },
        ],
      },
    });
    const end = ended(loop.decide());
    assert.equal(end.outcome, "failed");
    assert.match(
      end.summary,
      /the verifier did not approve \(its overall said pass, but it rejected gate rollback\)/,
    );
    assert.deepEqual(end.failingGates, ["rollback", "verifier-approves"]);
  });

  test("an overall of pass over a flag ruled not legitimate is derived as fail", () => {
    const loop = greenIteration().flagged("tamper-file", { file: "test/parse.test.ts" }).gatesPassed();
    loop.verifierEnded("ruled", {
      verdict: {
        overall: "pass",
        gates: [{ id: "tests", passed: true, evidence: [{ file: "src/parse.ts" }] }],
        tamper: [{ id: "T1", legitimate: false, reason: "weakens the check" }],
      },
    });
    assert.match(ended(loop.decide()).summary, /rejected flag T1/);
  });
});
