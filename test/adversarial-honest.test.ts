/**
 * The honest paths, each a real loop through the real CLI on the adversarial project: a real fix
 * verifies with no tamper flag, and failures that predate the loop (the `legacy` branch adds one) are
 * judged by the gate's baseline policy: no-new-failures lets a real fix through and says why in the
 * brief, the verifier's prompt and the report; strict blocks it; must-improve asks for fewer failures.
 *
 * One sandbox for the file: every loop has its own name, branch and worktrees.
 */
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import {
  cheatSpec,
  createAdversarialProject,
  fixedCalc,
  flagsOf,
  resultOf,
  runLoop,
} from "./support/adversarial-project.ts";
import { eventsOf } from "./support/loop-events.ts";
import type { Sandbox } from "./support/loop-sandbox.ts";
import { runPlannedVerifier } from "./support/planned-verifier.ts";

let sandbox: Sandbox;
before(async () => {
  sandbox = await createAdversarialProject({ legacy: true });
});
after(() => sandbox.cleanup());

test("the honest path: a real fix verifies with no tamper flag", async () => {
  const run = await runLoop(
    sandbox,
    cheatSpec("honest-fix", `{ say: "Fixed add().", write: { src/calc.js: ${JSON.stringify(fixedCalc)} } }`),
  );
  assert.equal(run.code, 0, run.stderr);
  assert.equal(run.report.stopReason, "verified");
  assert.deepEqual(flagsOf(run), []);
  assert.deepEqual(
    run.report.iterations[0].gates.map((gate) => [gate.phase, gate.passed]),
    [
      ["grade", true],
      ["confirm", true],
    ],
  );
  assert.equal(run.report.verdict?.overall, "pass");
  assert.equal(await sandbox.git("show", "loop/honest-fix:src/calc.js"), fixedCalc.trimEnd());
});

const legacyGate = (policy: string) =>
  `  - { id: tests, kind: tests-pass, run: "node --test test/*.test.js", timeout: 30s, baseline: ${policy} }`;

test("a pre-existing unrelated failure does not block a real fix under no-new-failures; brief, verifier and report call it pre-existing", async () => {
  const { run, prompt } = await runPlannedVerifier(sandbox, "legacy-no-new-failures", "1:correct,correct", {
    base: "legacy",
    gates: legacyGate("no-new-failures"),
  });
  assert.equal(run.code, 0, run.stderr);
  assert.equal(run.report.stopReason, "verified");
  const graded = resultOf(run, 1, "grade");
  assert.deepEqual([graded?.passed, graded?.failures], [false, ["legacy parses two-digit years"]]);
  assert.deepEqual(resultOf(run, 0, "baseline")?.failures?.sort(), [
    "add sums two numbers",
    "legacy parses two-digit years",
  ]);

  const [started] = eventsOf(run, "iteration_started");
  assert.match(
    started.brief,
    /- tests \(tests-pass\): `node --test test\/\*\.test\.js` must exit 0, or fail only tests that already failed on the base commit/,
  );
  assert.match(
    started.brief,
    /## Before the loop \(the base commit\)\nThese failures predate the loop:\n- tests failed there \(exit 1, 2 failing test\(s\)\): .*legacy parses two-digit years/,
  );
  assert.match(
    await prompt(1, "first"),
    /### tests \(tests-pass\): FAILED \(exit 1\), but it passes under its no-new-failures policy: its 1 failing test\(s\) already failed on the base commit, so they are pre-existing \(legacy parses two-digit years\)/,
  );
  assert.match(
    run.markdown,
    /\| tests \| tests-pass \| ✓ pass under no-new-failures \(0 new, 1 pre-existing failures\) \| failed \(2 tests\) \|/,
  );
});

test("the same pre-existing failure blocks the fix under strict; the next brief calls it pre-existing", async () => {
  const run = await runLoop(
    sandbox,
    `name: legacy-strict
goal: add(2, 3) returns 5.
repo: ./repo
base: legacy
maker:
  engine: scripted
  turns: [{ say: "Fixed add().", write: { src/calc.js: ${JSON.stringify(fixedCalc)} } }]
gates:
${legacyGate("strict")}
budget: { maxIterations: 2 }
`,
  );
  assert.equal(run.code, 3, run.stderr);
  assert.equal(run.report.stopReason, "budget_exhausted");
  assert.deepEqual(
    run.report.iterations.map((iteration) => [iteration.outcome, iteration.summary]),
    [
      ["failed", "gates failed: tests"],
      ["failed", "gates failed: tests"],
    ],
  );
  const [, second] = eventsOf(run, "iteration_started");
  assert.match(
    second.brief,
    /0 failing test\(s\) new since the base commit, 1 already failing there \(pre-existing: legacy parses two-digit years\)\./,
  );
  assert.match(run.markdown, /✗ exit 1 \(0 new, 1 pre-existing failures\)/);
});

test("must-improve: fewer failures than on the base commit pass; the same failures do not", async () => {
  const spec = (name: string, turn: string) => `name: ${name}
goal: add(2, 3) returns 5.
repo: ./repo
base: legacy
maker:
  engine: scripted
  turns: [${turn}]
gates:
${legacyGate("must-improve")}
budget: { maxIterations: 1 }
`;
  const improved = await runLoop(
    sandbox,
    spec(
      "must-improve-fixed",
      `{ say: "Fixed add().", write: { src/calc.js: ${JSON.stringify(fixedCalc)} } }`,
    ),
  );
  assert.equal(improved.code, 0, improved.stderr);
  assert.equal(improved.report.stopReason, "verified");
  assert.deepEqual(resultOf(improved, 1, "grade")?.failures, ["legacy parses two-digit years"]);
  assert.match(improved.markdown, /✓ pass under must-improve \(0 new, 1 pre-existing failures\)/);

  const same = await runLoop(
    sandbox,
    spec("must-improve-same", `{ say: "Tidied the README.", write: { README.md: "# calc, tidied\\n" } }`),
  );
  assert.equal(same.code, 3, same.stderr);
  assert.equal(same.report.stopReason, "budget_exhausted");
  assert.deepEqual(resultOf(same, 1, "grade")?.failures?.sort(), [
    "add sums two numbers",
    "legacy parses two-digit years",
  ]);
  assert.deepEqual(
    [same.report.iterations[0].outcome, same.report.iterations[0].summary],
    ["failed", "gates failed: tests"],
  );
});
