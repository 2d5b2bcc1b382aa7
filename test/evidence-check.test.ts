import assert from "node:assert/strict";
import { test } from "node:test";
import type { Verdict } from "../src/loop/events.ts";
import { checkEvidence } from "../src/verify/evidence-check.ts";

const sources = {
  lineCount: async (path: string) => ({ "src/parse.ts": 50 })[path],
  gateOutput: async (gate: string) =>
    gate === "tests" ? "\u001b[32m✔ parses   nested  lists\u001b[39m (3ms)\nℹ pass 12\n" : undefined,
};

function verdictWith(evidence: Verdict["gates"][number]["evidence"]): Verdict {
  return { overall: "pass", gates: [{ id: "tests", passed: true, evidence }] };
}

test("evidence that points at real files, lines and output passes", async () => {
  const problems = await checkEvidence(
    verdictWith([
      { file: "src/parse.ts", line: 50 },
      { file: "./src/parse.ts" },
      { gate: "tests", quote: "✔ parses nested lists" },
      { gate: "tests", quote: "pass 12" },
    ]),
    sources,
  );
  assert.deepEqual(problems, []);
});

test("a file that does not exist, a line out of range, and a quote never printed are each named", async () => {
  const problems = await checkEvidence(
    verdictWith([
      { file: "src/missing.ts", line: 1 },
      { file: "src/parse.ts", line: 51 },
      { gate: "tests", quote: "pass 13" },
      { gate: "lint", quote: "clean" },
    ]),
    sources,
  );
  assert.equal(problems.length, 4);
  assert.match(problems[0], /cites src\/missing\.ts, which does not exist/);
  assert.match(problems[1], /src\/parse\.ts:51, but the file has 50 lines/);
  assert.match(problems[2], /"pass 13" never appeared in gate 'tests' output/);
  assert.match(problems[3], /quotes gate 'lint', which has no output on this commit/);
});
