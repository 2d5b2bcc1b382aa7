import assert from "node:assert/strict";
import { describe, test } from "node:test";
import type { Verdict } from "../src/core/events.ts";
import { type CitedEntry, checkEvidence } from "../src/verify/evidence-check.ts";

const entries: Record<string, CitedEntry> = {
  "src/parse.ts": { kind: "file", lines: 50 },
  src: { kind: "directory" },
  "vendor/lib": { kind: "other", what: "a submodule" },
};
const sources = {
  entry: async (path: string) => entries[path],
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
      { file: "src/../src/parse.ts", line: 1 },
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

describe("evidence that points at nothing in particular is refused", () => {
  const cases: [string, Verdict["gates"][number]["evidence"][number], RegExp][] = [
    [".", { file: "." }, /cites \., which is the repository itself, not a file/],
    ["./", { file: "./" }, /cites \.\/, which is the repository itself, not a file/],
    ["an empty path", { file: "" }, /cites "", which is the repository itself, not a file/],
    ["src/..", { file: "src/.." }, /cites src\/\.\., which is the repository itself, not a file/],
    ["an absolute path", { file: "/etc/passwd" }, /cites \/etc\/passwd, which is outside the repository/],
    [
      "a path above the root",
      { file: "../secrets.txt" },
      /cites \.\.\/secrets\.txt, which is outside the repository/,
    ],
    ["a path that climbs out", { file: "src/../../x.ts" }, /which is outside the repository/],
    ["a Windows absolute path", { file: "C:\\repo\\x.ts" }, /which is outside the repository/],
    ["a folder", { file: "src" }, /cites src, which is a folder, not a file/],
    ["a folder with a slash", { file: "src/" }, /cites src\/, which is a folder, not a file/],
    ["a submodule", { file: "vendor/lib" }, /cites vendor\/lib, which is a submodule, not a file/],
    ["line 0", { file: "src/parse.ts", line: 0 }, /src\/parse\.ts:0, but lines start at 1/],
    [
      "a blank quote",
      { gate: "tests", quote: "   \n " },
      /quotes too little of gate 'tests' output to prove anything/,
    ],
    ["a two-letter quote", { gate: "tests", quote: "ok" }, /quotes too little/],
    ["a quote of punctuation", { gate: "tests", quote: "✔ ... ✔" }, /quotes too little/],
  ];
  for (const [name, evidence, problem] of cases) {
    test(name, async () => {
      const problems = await checkEvidence(verdictWith([evidence]), sources);
      assert.equal(problems.length, 1, problems.join("\n"));
      assert.match(problems[0], problem);
    });
  }
});
