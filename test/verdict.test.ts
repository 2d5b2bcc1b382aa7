import assert from "node:assert/strict";
import { test } from "node:test";
import { gateSchema } from "../src/core/spec.ts";
import { deriveOverall } from "../src/verify/derive-overall.ts";
import { checkVerdict, parseVerdictOutput, type VerdictCheck } from "../src/verify/verdict.ts";

const gates = [
  { id: "tests", kind: "tests-pass", run: "node --test" },
  { id: "rollback", kind: "agent-check", assert: "The migration can be rolled back." },
  { id: "perf", kind: "eval-script", run: "node bench/score.js", required: false },
].map((gate) => gateSchema.parse(gate));

const approve = (id: string) => ({
  id,
  passed: true,
  reason: "meets it",
  evidence: [{ file: "src/parse.ts", line: 40 }],
});
const reject = (id: string) => ({ id, passed: false, reason: `${id} is not met`, evidence: [] });

function verdict(rulings: unknown[], overall = "pass"): string {
  return JSON.stringify({ overall, gates: rulings, notes: "looked at the diff" });
}

function problems(check: VerdictCheck): string {
  assert.equal(check.valid, false, "expected an invalid verdict");
  return check.valid ? "" : check.problems.join("\n");
}

test("a verdict ruling on every gate with evidence is valid, as printed or surrounded by whitespace", () => {
  const text = verdict([
    approve("tests"),
    { id: "rollback", passed: true, evidence: [{ gate: "tests", quote: "ok 12 - parses" }] },
    approve("perf"),
  ]);
  const check = parseVerdictOutput(`\n  ${text}\n\n`, gates);
  assert.ok(check.valid, JSON.stringify(check));
  assert.equal(check.verdict.overall, "pass");
  assert.deepEqual(
    check.verdict.gates.map((ruling) => [ruling.id, ruling.passed]),
    [
      ["tests", true],
      ["rollback", true],
      ["perf", true],
    ],
  );
  assert.equal(check.verdict.notes, "looked at the diff");
});

test("a rejection with a reason is valid and needs no evidence", () => {
  const check = parseVerdictOutput(
    verdict([approve("tests"), reject("rollback"), approve("perf")], "fail"),
    gates,
  );
  assert.ok(check.valid, JSON.stringify(check));
  assert.equal(check.verdict.overall, "fail");
});

test("a verdict that leaves a gate out is invalid and names it", () => {
  const check = parseVerdictOutput(verdict([approve("tests"), approve("perf")]), gates);
  assert.match(problems(check), /no ruling on gate 'rollback'/);
});

test("a ruling on a gate the spec does not have is invalid", () => {
  const rulings = [approve("tests"), approve("rollback"), approve("perf"), approve("types")];
  assert.match(problems(parseVerdictOutput(verdict(rulings), gates)), /ruling on unknown gate 'types'/);
});

test("a gate ruled on twice is invalid", () => {
  const rulings = [approve("tests"), approve("rollback"), approve("perf"), reject("tests")];
  assert.match(problems(parseVerdictOutput(verdict(rulings, "fail"), gates)), /gate 'tests' ruled on twice/);
});

test("a rejection without a reason is invalid", () => {
  const rulings = [approve("tests"), { id: "rollback", passed: false, evidence: [] }, approve("perf")];
  assert.match(
    problems(parseVerdictOutput(verdict(rulings, "fail"), gates)),
    /rollback: a rejection needs a reason/,
  );
  const blank = [approve("tests"), { id: "rollback", passed: false, reason: "  " }, approve("perf")];
  assert.match(
    problems(parseVerdictOutput(verdict(blank, "fail"), gates)),
    /rollback: a rejection needs a reason/,
  );
});

test("an approval without evidence is invalid", () => {
  const rulings = [approve("tests"), { id: "rollback", passed: true, reason: "trust me" }, approve("perf")];
  assert.match(problems(parseVerdictOutput(verdict(rulings), gates)), /rollback: an approval needs evidence/);
});

test("evidence must be a file (with an optional positive line) or a quote from a gate", () => {
  for (const evidence of [{ file: "" }, { file: "a.ts", line: 0 }, { gate: "tests" }, { url: "https://x" }]) {
    const rulings = [
      { id: "tests", passed: true, evidence: [evidence] },
      approve("rollback"),
      approve("perf"),
    ];
    assert.equal(checkVerdict(JSON.parse(verdict(rulings)), gates).valid, false, JSON.stringify(evidence));
  }
});

test("an overall that disagrees with the rulings is admissible: the outcome is derived and the disagreement named", () => {
  const passWithRejection = verdict([approve("tests"), reject("rollback"), approve("perf")], "pass");
  const check = parseVerdictOutput(passWithRejection, gates);
  assert.ok(check.valid, JSON.stringify(check));
  assert.deepEqual(deriveOverall(check.verdict, gates), {
    overall: "fail",
    disagreement: "its overall said pass, but it rejected gate rollback",
  });
  const failWithAllApproved = verdict([approve("tests"), approve("rollback"), approve("perf")], "fail");
  const failing = parseVerdictOutput(failWithAllApproved, gates);
  assert.ok(failing.valid, JSON.stringify(failing));
  assert.equal(deriveOverall(failing.verdict, gates).overall, "fail");
  assert.match(deriveOverall(failing.verdict, gates).disagreement ?? "", /said fail, though every/);
  const agreeing = parseVerdictOutput(
    verdict([approve("tests"), approve("rollback"), reject("perf")], "pass"),
    gates,
  );
  assert.ok(agreeing.valid);
  assert.deepEqual(deriveOverall(agreeing.verdict, gates), { overall: "pass" });
});

test("a rejected gate that is not required does not make overall fail", () => {
  const check = parseVerdictOutput(
    verdict([approve("tests"), approve("rollback"), reject("perf")], "pass"),
    gates,
  );
  assert.ok(check.valid, JSON.stringify(check));
});

test("an overall other than pass or fail, or an unknown field, is invalid", () => {
  assert.match(problems(parseVerdictOutput(verdict([approve("tests")], "maybe"), gates)), /overall/);
  const extra = JSON.stringify({ overall: "pass", gates: [approve("tests")], confidence: 0.9 });
  assert.equal(parseVerdictOutput(extra, gates).valid, false);
});

test("garbage, empty output, prose around the JSON, or two JSON values are invalid", () => {
  const valid = verdict([approve("tests"), approve("rollback"), approve("perf")]);
  assert.match(problems(parseVerdictOutput("", gates)), /printed nothing/);
  assert.match(problems(parseVerdictOutput("  \n\t", gates)), /printed nothing/);
  assert.match(problems(parseVerdictOutput("LGTM, ship it!", gates)), /not one JSON value: "LGTM, ship it!"/);
  assert.match(problems(parseVerdictOutput(`Here is my verdict:\n${valid}`, gates)), /not one JSON value/);
  assert.match(problems(parseVerdictOutput(`${valid}\n${valid}`, gates)), /not one JSON value/);
  assert.match(problems(parseVerdictOutput("null", gates)), /verdict/);
  assert.match(problems(parseVerdictOutput("[]", gates)), /verdict/);
  const long = problems(parseVerdictOutput("x".repeat(5000), gates));
  assert.ok(long.length < 300, "the problem quotes a short preview, not the whole output");
});

test("every tamper flag needs a ruling with a reason, and an illegitimate one makes the verdict fail", () => {
  const flags = [{ id: "T1" }, { id: "T2" }];
  const rulings = [approve("tests"), approve("rollback"), approve("perf")];
  const unruled = JSON.stringify({
    overall: "pass",
    gates: rulings,
    tamper: [{ id: "T1", legitimate: true, reason: "a rename" }],
  });
  assert.match(problems(parseVerdictOutput(unruled, gates, { flags })), /tamper: no ruling on flag 'T2'/);
  const unknown = JSON.stringify({
    overall: "pass",
    gates: rulings,
    tamper: [
      { id: "T1", legitimate: true, reason: "a rename" },
      { id: "T2", legitimate: true, reason: "fine" },
      { id: "T9", legitimate: true, reason: "?" },
    ],
  });
  assert.match(problems(parseVerdictOutput(unknown, gates, { flags })), /ruling on unknown flag 'T9'/);
  const passDespiteTamper = JSON.stringify({
    overall: "pass",
    gates: rulings,
    tamper: [
      { id: "T1", legitimate: true, reason: "a rename" },
      { id: "T2", legitimate: false, reason: "the test was deleted" },
    ],
  });
  const despite = parseVerdictOutput(passDespiteTamper, gates, { flags });
  assert.ok(despite.valid, JSON.stringify(despite));
  assert.deepEqual(deriveOverall(despite.verdict, gates), {
    overall: "fail",
    disagreement: "its overall said pass, but it rejected flag T2",
  });
  const honest = passDespiteTamper.replace('"overall":"pass"', '"overall":"fail"');
  assert.equal(parseVerdictOutput(honest, gates, { flags }).valid, true);
});

test("a verifier cannot approve a gate whose own run failed", () => {
  const check = parseVerdictOutput(verdict([approve("tests"), approve("rollback"), approve("perf")]), gates, {
    redGates: ["perf"],
  });
  assert.match(problems(check), /gates\.perf: approved, but the gate's own run failed on this commit/);
});
