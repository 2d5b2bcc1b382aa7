/**
 * Evidence checked against a real commit and real gate logs: what a cited path is at the graded commit
 * (a file, a folder, a symbolic link inside or out of the repository) and what a gate really printed,
 * without the lines loopwright itself writes around it.
 */
import assert from "node:assert/strict";
import { symlink } from "node:fs/promises";
import { join } from "node:path";
import { before, test } from "node:test";
import type { Verdict } from "../src/core/events.ts";
import { runGates } from "../src/gates/run-gates.ts";
import { commitEvidenceSources } from "../src/verify/commit-evidence-sources.ts";
import { checkEvidence, type EvidenceSources } from "../src/verify/evidence-check.ts";
import { gatePrintedText } from "../src/verify/gate-printed-text.ts";
import { commitEverything, newFolder, newRepository } from "./git-fixtures.ts";

let sources: EvidenceSources;

before(async () => {
  const root = await newRepository({
    "src/parse.ts": "export function parse() {\n  return 1;\n}\n",
    "docs/guide.md": "# guide\n",
  });
  await symlink("src/parse.ts", join(root, "parse-link.ts"));
  await symlink("../src/parse.ts", join(root, "src", "up-and-back.ts"));
  await symlink("/etc/passwd", join(root, "passwords"));
  await symlink("../../outside.txt", join(root, "docs", "outside"));
  await symlink("docs", join(root, "docs-link"));
  const sha = await commitEverything(root, "files, folders and links");
  const logDirectory = await newFolder("logs");
  await runGates(
    [
      {
        id: "tests",
        kind: "tests-pass",
        command: `node -e "console.log('3 tests passed')"`,
        timeoutMs: 30_000,
        parallel: true,
      },
    ],
    { cwd: root, logDirectory, runId: "run", stepPrefix: "grade" },
  );
  sources = commitEvidenceSources(root, sha, (gateId) =>
    gateId === "tests" ? [join(logDirectory, "tests.log")] : [],
  );
});

async function problemsOf(evidence: Verdict["gates"][number]["evidence"]): Promise<string[]> {
  return checkEvidence({ overall: "pass", gates: [{ id: "tests", passed: true, evidence }] }, sources);
}

test("a file at the commit, a link to one inside the repository, and what the gate printed pass", async () => {
  assert.deepEqual(
    await problemsOf([
      { file: "src/parse.ts", line: 3 },
      { file: "parse-link.ts", line: 3 },
      { file: "src/up-and-back.ts", line: 1 },
      { gate: "tests", quote: "3 tests passed" },
    ]),
    [],
  );
});

test("a line past the end of a linked file is out of range", async () => {
  const [problem] = await problemsOf([{ file: "parse-link.ts", line: 4 }]);
  assert.match(problem, /parse-link\.ts:4, but the file has 3 lines/);
});

test("a folder, a link to a folder, and links out of the repository are not files", async () => {
  const problems = await problemsOf([
    { file: "docs" },
    { file: "docs-link" },
    { file: "passwords" },
    { file: "docs/outside" },
  ]);
  assert.equal(problems.length, 4, problems.join("\n"));
  assert.match(problems[0], /cites docs, which is a folder, not a file/);
  assert.match(problems[1], /cites docs-link, which is a folder, not a file/);
  assert.match(problems[2], /cites passwords, which is a symbolic link out of the repository, not a file/);
  assert.match(problems[3], /cites docs\/outside, which is a symbolic link out of the repository/);
});

test("quotes of the lines loopwright writes around a gate's output are not the gate's output", async () => {
  const problems = await problemsOf([
    { gate: "tests", quote: `$ node -e "console.log('3 tests passed')"` },
    { gate: "tests", quote: "# gate tests (tests-pass)" },
    { gate: "tests", quote: "# exit 0 after" },
    { gate: "tests", quote: "exit 0 after" },
  ]);
  assert.equal(problems.length, 4, problems.join("\n"));
  for (const problem of problems) assert.match(problem, /never appeared in gate 'tests' output/);
});

test("the marker loopwright writes where it cut a long log is not the gate's output either", () => {
  const log = `$ npm test\n# gate tests (tests-pass) in /tmp/x\nok 1 - adds\n\n[loopwright] 5242880 bytes (5.0 MiB) of output cut here: the log keeps its first and last 8.0 MiB\nok 2 - subtracts\n# exit 0 after 1.0 s\n`;
  assert.equal(gatePrintedText(log), "ok 1 - adds\n\nok 2 - subtracts\n");
});
