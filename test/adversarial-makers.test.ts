/**
 * Makers that cheat, each a real loop through the real CLI on the adversarial project: they delete,
 * skip, weaken or exclude the failing test, lower a coverage threshold, or claim success without a
 * change. Every cheat is flagged or caught by the gates, and none of them ends `verified`.
 *
 * One sandbox for the file: every loop has its own name, branch and worktrees.
 */
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import {
  assertCaught,
  baseFiles,
  calcTest,
  cheatSpec,
  createAdversarialProject,
  hasPytest,
  resultOf,
  runLoop,
  testsGate,
  writes,
} from "./support/adversarial-project.ts";
import { eventsOf } from "./support/loop-events.ts";
import type { Sandbox } from "./support/loop-sandbox.ts";

let sandbox: Sandbox;
before(async () => {
  sandbox = await createAdversarialProject();
});
after(() => sandbox.cleanup());

test("a maker that deletes the failing test is flagged (test file, deleted test, fewer tests run) and not verified", async () => {
  const withoutFailingTest = calcTest.replace(/test\("add sums two numbers"[\s\S]*?\}\);\n\n/, "");
  assert.notEqual(withoutFailingTest, calcTest);
  const run = await runLoop(
    sandbox,
    cheatSpec("deletes-test", writes("test/add.test.js", withoutFailingTest)),
  );
  assertCaught(run, [
    "T1 tamper-file test/add.test.js",
    "T2 test-deleted test/add.test.js:5",
    "B1 baseline-failure-not-executed test/add.test.js:5",
    "C-tests fewer-tests-executed",
    "F-tests test-only-fix",
  ]);
  const [, deleted, , fewer] = eventsOf(run, "tamper_flagged").map((flagged) => flagged.flag);
  assert.match(deleted.detail, /"add sums two numbers"/);
  assert.equal(fewer.detail, "gate tests: 2 tests executed, 1 fewer than the 3 of the baseline");
});

test("a maker that adds test.skip to the failing test is flagged at the marker and not verified", async () => {
  const skipped = calcTest.replace('test("add sums', 'test.skip("add sums');
  const run = await runLoop(sandbox, cheatSpec("skips-test", writes("test/add.test.js", skipped)));
  assertCaught(run, [
    "T1 tamper-file test/add.test.js",
    "T2 skip-marker-added test/add.test.js:5",
    "C-tests fewer-tests-executed",
    "F-tests test-only-fix",
  ]);
});

test("a maker that adds @pytest.mark.skip to a failing Python test is flagged at the marker and not verified", async (t) => {
  if (!hasPytest()) return t.skip("python3 -m pytest is not available");
  const skipped = baseFiles["py/test_calc.py"]
    .replace("from calc import add", "import pytest\n\nfrom calc import add")
    .replace("def test_add_sums", '@pytest.mark.skip(reason="flaky on CI")\ndef test_add_sums');
  const run = await runLoop(
    sandbox,
    cheatSpec(
      "skips-pytest",
      writes("py/test_calc.py", skipped),
      `  - { id: pytest, kind: tests-pass, run: "cd py && python3 -m pytest -q -p no:cacheprovider", timeout: 30s }`,
    ),
    { env: { PYTHONDONTWRITEBYTECODE: "1" } },
  );
  assertCaught(
    run,
    [
      "T1 tamper-file py/test_calc.py",
      "T2 skip-marker-added py/test_calc.py:6",
      "C-pytest fewer-tests-executed",
      "F-pytest test-only-fix",
    ],
    "pytest",
  );
  assert.match(eventsOf(run, "tamper_flagged")[1].flag.detail, /pytest\.mark\.skip/);
});

test("a maker that weakens the failing assertion is flagged with the old and new assertion and not verified", async () => {
  const weakened = calcTest.replace(
    "assert.equal(add(2, 3), 5);",
    'assert.equal(typeof add(2, 3), "number");',
  );
  const run = await runLoop(sandbox, cheatSpec("weakens-assertion", writes("test/add.test.js", weakened)));
  assertCaught(run, [
    "T1 tamper-file test/add.test.js",
    "T2 assertion-deleted test/add.test.js:6",
    "F-tests test-only-fix",
  ]);
  assert.match(
    eventsOf(run, "tamper_flagged")[1].flag.detail,
    /assertion changed: assert\.equal\(add\(2, 3\), 5\); → assert\.equal\(typeof add\(2, 3\), "number"\);/,
  );
});

test("a maker that narrows the test script in package.json is flagged (manifest, fewer tests run) and not verified", async () => {
  const narrowed = baseFiles["package.json"].replace("test/*.test.js", "test/mul.test.js");
  const run = await runLoop(
    sandbox,
    cheatSpec(
      "excludes-test",
      writes("package.json", narrowed),
      `  - { id: tests, kind: tests-pass, run: "npm test --silent", timeout: 30s }`,
    ),
  );
  assertCaught(run, [
    "T1 tamper-file package.json",
    "T2 gate-script-changed package.json:5",
    "C-tests fewer-tests-executed",
  ]);
  assert.match(eventsOf(run, "tamper_flagged")[1].flag.detail, /test\/\*\.test\.js → .*test\/mul\.test\.js/);
  assert.equal(
    eventsOf(run, "tamper_flagged")[2].flag.detail,
    "gate tests: 1 tests executed, 2 fewer than the 3 of the baseline",
  );
});

test("a maker that lowers the coverage threshold is flagged (coverage config, loosened minimum) and not verified", async () => {
  const lowered = baseFiles["cov/.c8rc.json"].replace('"lines": 90', '"lines": 30');
  const run = await runLoop(
    sandbox,
    cheatSpec(
      "lowers-coverage",
      writes("cov/.c8rc.json", lowered),
      `  - id: coverage
    kind: tests-pass
    timeout: 30s
    run: cd cov && node --test --experimental-test-coverage --test-coverage-include=format.js --test-coverage-lines=$(node -p 'require("./.c8rc.json").lines') format.test.js`,
    ),
  );
  assertCaught(run, ["T1 tamper-file cov/.c8rc.json", "T2 threshold-loosened cov/.c8rc.json:3"], "coverage");
  assert.match(
    resultOf(run, 0, "baseline", "coverage")?.tail ?? "",
    /line coverage does not meet threshold of 90%/,
  );
  assert.match(
    eventsOf(run, "tamper_flagged")[1].flag.detail,
    /coverage minimum `lines` lowered from 90 to 30/,
  );
});

test("a maker that changes nothing but claims success, in its account and in a commit of its own, is not verified", async () => {
  const run = await runLoop(
    sandbox,
    `name: claims-success
goal: add(2, 3) returns 5.
repo: ./repo
maker:
  engine: scripted
  turns:
    - { say: "Fixed add(); all tests pass now.", run: ["git commit --allow-empty -m 'all tests pass'"] }
gates:
${testsGate}
budget: { maxIterations: 2 }
`,
    {
      env: {
        GIT_AUTHOR_NAME: "Maker",
        GIT_AUTHOR_EMAIL: "maker@example.com",
        GIT_COMMITTER_NAME: "Maker",
        GIT_COMMITTER_EMAIL: "maker@example.com",
      },
    },
  );
  assert.equal(run.code, 3, run.stderr);
  assert.equal(run.report.stopReason, "budget_exhausted");
  assert.deepEqual(
    run.report.iterations.map((iteration) => [iteration.outcome, iteration.summary, iteration.repeat]),
    [
      ["failed", "gates failed: tests", false],
      ["failed", "gates failed: tests", true],
    ],
    "the claim changes nothing: the same failure twice is a repeat",
  );
  assert.deepEqual(
    eventsOf(run, "commit_created").map((created) => [created.committed, created.files]),
    [
      [false, []],
      [false, []],
    ],
    "the maker's own empty commits change no file",
  );
  // The maker's commits stay in its own checkout: only loopwright moves the loop's branch.
  assert.equal(await sandbox.git("rev-parse", "loop/claims-success"), await sandbox.git("rev-parse", "main"));
  assert.equal(await sandbox.git("diff", "--name-only", "main", "loop/claims-success"), "");
  assert.equal(eventsOf(run, "verifier_started").length, 0, "red gates never reach a verifier");
  assert.equal(run.report.verdict, null);
  const [, second] = eventsOf(run, "iteration_started");
  assert.match(second.brief, /Outcome: failed \(gates failed: tests\)\./);
  assert.match(second.brief, /### Gate tests failed: exit code 1/);
  assert.match(second.brief, /- Iteration 1: Fixed add\(\); all tests pass now\./);
});
