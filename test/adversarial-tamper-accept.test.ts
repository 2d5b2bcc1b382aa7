/**
 * `tamper.accept` end to end through the real CLI: a blocking class the spec accepts goes to the
 * verifier (which here approves everything), the loop can verify, and the report states the acceptance
 * prominently; a class it does not accept still blocks; a bad accept name is a one-line spec error.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { after, before, test } from "node:test";
import { runLoop } from "./support/adversarial-project.ts";
import { eventsOf } from "./support/loop-events.ts";
import { createSandbox, type Sandbox } from "./support/loop-sandbox.ts";
import { fooledVerifier } from "./support/runner-cheats.ts";

const tests = `const test = require("node:test");
const assert = require("node:assert/strict");

test("total adds the numbers", () => {
  assert.equal(1 + 2, 3);
});

test("legacy parser keeps two-digit years", () => {
  assert.equal(new Date("01/02/03").getFullYear(), 1903);
});
`;

let sandbox: Sandbox;
before(async () => {
  sandbox = await createSandbox({ "README.md": "# dates\n", "test/dates.test.js": tests });
});
after(() => sandbox.cleanup());

const skipped = tests.replace('test("legacy', 'test.skip("legacy');

function spec(name: string, tamper: string): string {
  return `name: ${name}
goal: The legacy two-digit year parser is retired; its test is skipped until the module is deleted.
repo: ./repo
maker:
  engine: scripted
  turns: [${JSON.stringify({ say: "Skipped the retired parser's test.", write: { "test/dates.test.js": skipped } })}]
verifier: { engine: command, run: ./fooled-verifier.sh }
gates:
  - { id: tests, kind: tests-pass, run: "node --test", timeout: 60s }
${tamper}
budget: { maxIterations: 1 }
`;
}

test("an accepted skip-marker goes to the verifier, the loop verifies, and the report says the class was accepted and why", async () => {
  const run = await runLoop(
    sandbox,
    spec(
      "accepts-skip",
      `tamper: { accept: [skip-marker, fewer-tests-executed, test-only-fix], reason: "the legacy parser is retired (ticket 41)" }`,
    ),
    { scripts: { "fooled-verifier.sh": fooledVerifier } },
  );
  assert.equal(run.code, 0, `${run.stderr} ${JSON.stringify(run.report.iterations)}`);
  assert.equal(run.report.stopReason, "verified");
  const [ended] = eventsOf(run, "verifier_ended");
  assert.deepEqual(
    ended.verdict?.tamper?.map((ruling) => ruling.id),
    ["T1", "T2", "C-tests", "F-tests"],
    "the verifier ruled on every flag, the accepted blocking ones included",
  );
  assert.match(
    run.report.iterations[0].summary,
    /4 tamper flags ruled legitimate by the verifier: T1, T2, C-tests, F-tests/,
  );
  assert.match(
    run.markdown,
    /\*\*Tamper classes accepted by this loop\*\* \(their flags went to the verifier instead of failing the iteration\): skip-marker, fewer-tests-executed, test-only-fix\. Reason given: the legacy parser is retired \(ticket 41\)/,
  );
  assert.match(
    run.markdown,
    /- T2 skip-marker-added `test\/dates\.test\.js:8`: .* — blocking, ACCEPTED by tamper\.accept; ruled legitimate: /,
  );
});

test("accepting one class leaves the others blocking", async () => {
  const run = await runLoop(
    sandbox,
    spec("accepts-too-little", `tamper: { accept: [skip-marker], reason: "the legacy parser is retired" }`),
    { scripts: { "fooled-verifier.sh": fooledVerifier } },
  );
  assert.equal(run.code, 3, run.stderr);
  assert.match(run.report.iterations[0].summary, /^blocked by tamper flags .*C-tests fewer-tests-executed/);
  assert.doesNotMatch(run.report.iterations[0].summary, /T2 skip-marker-added/);
  assert.equal(eventsOf(run, "verifier_started").length, 0);
});

test("an unknown class, or an acceptance without a reason, is a one-line spec error with exit 2", async () => {
  for (const [tamper, message] of [
    [
      `tamper: { accept: [skip-markers], reason: "r" }`,
      /tamper\.accept\[0\]: unknown tamper class 'skip-markers' \(known: skip-marker, /,
    ],
    [`tamper: { accept: [skip-marker] }`, /tamper\.reason: required when accept is not empty/],
  ] as const) {
    const path = await sandbox.spec(spec("bad-accept", tamper), join(sandbox.root, "bad-accept.yaml"));
    const result = await sandbox.cli(["validate", path]);
    assert.equal(result.code, 2, result.stderr);
    assert.match(result.stderr, message);
    assert.doesNotMatch(result.stderr, /\n\s+at /, "no stack trace");
  }
});
