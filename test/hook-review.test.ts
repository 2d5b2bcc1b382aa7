/** The reviewer's finding grammar and the verdict the hook derives from a report (pure). */
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { deriveVerdict, describeCounts, judgeReport, parseFindings } from "../src/hooks/review/findings.ts";

describe("finding grammar", () => {
  test("reads severity, path, line and message of each finding line", () => {
    const findings = parseFindings(
      [
        "Reviewed 2 files.",
        "[CRITICAL] src/auth.ts:42 the token is logged in clear",
        "- [WARNING] src/auth.ts:7: name shadows the import",
        "* [INFO] `README.md:3` — typo",
      ].join("\n"),
    );
    assert.deepEqual(findings, [
      {
        severity: "CRITICAL",
        path: "src/auth.ts",
        line: 42,
        message: "the token is logged in clear",
        wellFormed: true,
      },
      {
        severity: "WARNING",
        path: "src/auth.ts",
        line: 7,
        message: "name shadows the import",
        wellFormed: true,
      },
      { severity: "INFO", path: "README.md", line: 3, message: "typo", wellFormed: true },
    ]);
  });

  test("a tagged line without path:line still counts, marked as breaking the grammar", () => {
    assert.deepEqual(parseFindings("**[CRITICAL]** tests were deleted"), [
      { severity: "CRITICAL", message: "tests were deleted", wellFormed: false },
    ]);
  });

  test("a line with several tags counts once, at its most severe", () => {
    const [finding] = parseFindings("[INFO] a.js:1 looked fine at first [critical] but it drops data");
    assert.equal(finding.severity, "CRITICAL");
  });
});

describe("verdict derived by the hook", () => {
  test("any [CRITICAL] means FAIL whatever verdict line the reviewer wrote", () => {
    const derived = deriveVerdict("[CRITICAL] a.js:1 deletes user data\n[INFO] a.js:2 ok\n\nVERDICT: PASS\n");
    assert.equal(derived?.verdict, "FAIL");
    assert.equal(derived?.claimed, "PASS");
    assert.deepEqual(derived?.counts, { CRITICAL: 1, WARNING: 0, INFO: 1 });
  });

  test("warnings and remarks alone pass, and a FAIL line without a critical finding does not decide", () => {
    assert.equal(deriveVerdict("[WARNING] a.js:3 long function\nVERDICT: FAIL")?.verdict, "PASS");
    assert.equal(deriveVerdict("No findings.")?.verdict, "PASS");
  });

  test("a lower-case or decorated critical tag is still critical", () => {
    assert.equal(deriveVerdict("- [critical] a.js:9 off by one")?.verdict, "FAIL");
  });

  test("an empty report gives no verdict at all", () => {
    assert.equal(deriveVerdict(""), undefined);
    assert.equal(deriveVerdict("  \n\t\n"), undefined);
  });

  test("counts read as a user expects", () => {
    assert.equal(describeCounts({ CRITICAL: 2, WARNING: 1, INFO: 0 }), "2 critical, 1 warning, 0 info");
  });
});

describe("a PASS needs a well-formed report", () => {
  const invalid = (report: string) => {
    const judged = judgeReport(report);
    assert.equal(judged.kind, "invalid", `${JSON.stringify(report)} was taken as a report`);
    return judged.kind === "invalid" ? judged.why : "";
  };

  test("a final message that is not a report is no valid report", () => {
    assert.match(
      invalid("I could not open the review request, so I reviewed nothing."),
      /not a finding.*I could not open the review request/,
    );
    assert.equal(deriveVerdict("I could not open the review request, so I reviewed nothing."), undefined);
  });

  test("a bracketless severity is no valid report, not a PASS", () => {
    assert.match(invalid("CRITICAL: calc.py:2 divides by zero"), /CRITICAL: calc\.py:2/);
    assert.match(invalid("**CRITICAL** calc.py:2 divides by zero\nNo findings."), /CRITICAL/);
  });

  test("a tag outside the grammar is no valid report, not a FAIL", () => {
    assert.match(invalid("No [CRITICAL] findings."), /outside the grammar/);
    assert.match(invalid("[CRITICAL] the tests were deleted"), /path:line/);
  });

  test("a verdict line alone, or prose around findings, is no valid report", () => {
    invalid("VERDICT: PASS");
    invalid("Here is my review:\n[WARNING] a.js:3 long function\nVERDICT: PASS");
  });

  test("findings in the grammar, or exactly the no-findings line, are a report", () => {
    assert.equal(judgeReport("No findings.").kind, "verdict");
    assert.equal(judgeReport("  no findings\n\nVERDICT: PASS\n").kind, "verdict");
    assert.equal(judgeReport("- [WARNING] a.js:3 long function\n* [INFO] `b.js:1` — fine").kind, "verdict");
  });

  test("a critical finding in the grammar fails the review even among prose", () => {
    const judged = judgeReport("Reviewed 2 files.\n[CRITICAL] a.js:1 deletes user data");
    assert.equal(judged.kind === "verdict" && judged.derived.verdict, "FAIL");
  });
});
