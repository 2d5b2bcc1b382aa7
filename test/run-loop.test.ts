import assert from "node:assert/strict";
import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { test } from "node:test";
import { createSandbox } from "./support/loop-sandbox.ts";

const twoIterationSpec = `name: fix-answer
goal: |
  answer.txt says 42.
repo: ./repo
maker:
  engine: scripted
  turns:
    - say: "first guess"
      write: { answer.txt: "41\\n" }
    - say: "second guess"
      write: { answer.txt: "42\\n" }
gates:
  - { id: answer, kind: tests-pass, run: "grep -qx 42 answer.txt" }
budget: { maxIterations: 3 }
`;

test("a scripted loop fails once, then is verified; the user's checkout is untouched", async () => {
  const sandbox = await createSandbox({ "README.md": "# repo\n", "answer.txt": "0\n" });
  try {
    await sandbox.write({ "README.md": "# repo\nuncommitted edit\n" });
    const spec = await sandbox.spec(twoIterationSpec);
    const run = await sandbox.cli(["run", spec]);
    assert.equal(run.code, 0, run.stderr + run.stdout);
    assert.match(run.stdout, /iteration 1: failed/);
    assert.match(run.stdout, /stopped: verified/);

    assert.equal(await sandbox.git("branch", "--show-current"), "main");
    assert.equal(await readFile(join(sandbox.repo, "README.md"), "utf8"), "# repo\nuncommitted edit\n");
    assert.equal(await readFile(join(sandbox.repo, "answer.txt"), "utf8"), "0\n");
    assert.equal(await sandbox.git("show", "loop/fix-answer:answer.txt"), "42");
    assert.equal(await sandbox.git("rev-list", "--count", "main..loop/fix-answer"), "2");

    const show = await sandbox.cli(["show", "fix-answer", "--json"]);
    assert.equal(show.code, 0, show.stderr);
    const summary = JSON.parse(show.stdout);
    assert.equal(summary.stopReason, "verified");
    assert.deepEqual(
      summary.iterations.map((iteration: { outcome: string }) => iteration.outcome),
      ["failed", "verified"],
    );

    const report = await sandbox.cli(["report", "fix-answer"]);
    assert.match(report.stdout, /## Goal\n\nanswer.txt says 42./);
    assert.match(report.stdout, /\*\*verified\*\*/);

    const logs = await sandbox.cli(["logs", "fix-answer", "--iteration", "1", "--gate", "answer"]);
    assert.equal(logs.code, 0, logs.stderr);
    assert.match(logs.stdout, /==> iteration 1 gate answer \(grade\)/);
    assert.match(logs.stdout, /\$ grep -qx 42 answer\.txt/);
    const missing = await sandbox.cli(["logs", "fix-answer", "--iteration", "1", "--gate", "nope"]);
    assert.equal(missing.code, 2);
    assert.match(missing.stderr, /no log for gate 'nope'/);

    const brief = await sandbox.cli(["brief", "fix-answer", "--iteration", "2"]);
    assert.match(brief.stdout, /Gate answer failed: exit code 1/);
    assert.match(brief.stdout, /Iteration 1: first guess/);
  } finally {
    await sandbox.cleanup();
  }
});

test("gates grade the committed SHA in their own worktree: ignored files the maker leaves cannot sway them", async () => {
  const sandbox = await createSandbox({
    ".gitignore": ".env\n",
    "check.sh": 'test "$(cat .env 2>/dev/null)" = ok\n',
  });
  try {
    const spec = await sandbox.spec(`name: isolated
goal: the check passes
repo: ./repo
maker:
  engine: scripted
  turns:
    - write: { .env: "ok", notes.txt: "tried to cheat with an ignored file\\n" }
gates: [{ id: check, kind: tests-pass, run: "sh check.sh" }]
budget: { maxIterations: 1 }
`);
    const run = await sandbox.cli(["run", spec]);
    assert.equal(run.code, 3, run.stdout + run.stderr);
    assert.match(run.stdout, /✗ check exit 1/);
    const files = await sandbox.git("ls-tree", "-r", "--name-only", "loop/isolated");
    assert.doesNotMatch(files, /\.env/);
  } finally {
    await sandbox.cleanup();
  }
});
