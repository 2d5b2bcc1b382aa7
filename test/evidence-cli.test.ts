/**
 * Evidence that points at nothing in particular, through the real CLI: a verifier that approves an
 * honest fix citing the repository itself, a folder, or the lines loopwright writes around a gate's log
 * has its verdict refused (and, refused twice, the iteration is not verified), while the scripted
 * verifier's own `auto` verdict, which cites real files and output, verifies the same fix.
 */
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { createAdversarialProject, fixedCalc, runLoop } from "./support/adversarial-project.ts";
import { eventsOf } from "./support/loop-events.ts";
import type { Sandbox } from "./support/loop-sandbox.ts";

let sandbox: Sandbox;
before(async () => {
  sandbox = await createAdversarialProject();
});
after(() => sandbox.cleanup());

function spec(name: string, verdict: string): string {
  return `name: ${name}
goal: add(2, 3) returns 5.
repo: ./repo
maker:
  engine: scripted
  turns:
    - { say: "Fixed add.", write: { src/calc.js: ${JSON.stringify(fixedCalc)} } }
verifier:
  engine: scripted
  turns:
    - { verdict: ${verdict} }
gates:
  - { id: tests, kind: tests-pass, run: "node --test test/*.test.js", timeout: 30s }
budget: { maxIterations: 1 }
`;
}

const approving = (evidence: string) =>
  `{ overall: pass, gates: [{ id: tests, passed: true, evidence: [${evidence}] }] }`;

const cases: [string, string, RegExp][] = [
  ["cites-root", '{ file: "." }', /cites \., which is the repository itself, not a file/],
  ["cites-up-and-back", '{ file: "src/.." }', /cites src\/\.\., which is the repository itself/],
  ["cites-folder", '{ file: "test" }', /cites test, which is a folder, not a file/],
  ["cites-outside", '{ file: "/etc/hostname" }', /cites \/etc\/hostname, which is outside the repository/],
  [
    "quotes-header",
    '{ gate: tests, quote: "$ node --test test/*.test.js" }',
    /never appeared in gate 'tests' output/,
  ],
  ["quotes-footer", '{ gate: tests, quote: "# exit 0 after" }', /never appeared in gate 'tests' output/],
  ["quotes-blank", '{ gate: tests, quote: "   " }', /quotes too little of gate 'tests' output/],
];
for (const [name, evidence, problem] of cases) {
  test(`a verifier whose only evidence ${name.replace("-", "s ")} is refused and the fix is not verified`, async () => {
    const run = await runLoop(sandbox, spec(name, approving(evidence)));
    const [rejected] = eventsOf(run, "verdict_rejected");
    assert.match(rejected?.problems.join("\n") ?? "", problem);
    assert.notEqual(run.report.stopReason, "verified");
  });
}

test("the scripted verifier's auto verdict cites real output and verifies the honest fix", async () => {
  const run = await runLoop(sandbox, spec("auto-verdict", "auto"));
  assert.deepEqual(eventsOf(run, "verdict_rejected"), []);
  assert.equal(run.report.stopReason, "verified", run.stderr);
  const evidence = run.report.verdict?.gates.find((gate) => gate.id === "tests")?.evidence ?? [];
  assert.ok(evidence.length > 0);
});
