/**
 * Secrets never leave, end to end through the real CLI: a maker plants a known secret value through
 * every path it has (a gate's very long line, LESSONS.md, source, `.env`), and afterwards the value is
 * nowhere: not in any file of the state folder (the SQLite database and its WAL included), not on
 * stdout, not in `logs`, `brief` or `show`, not in the user's object store and not on the pushed remote.
 * The change that held it is a blocking `secret-in-change` finding naming the file and line.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { test } from "node:test";
import { createSandbox } from "./support/loop-sandbox.ts";
import { assertNowhere, secretEnvironment } from "./support/planted-secrets.ts";

test("a secret split across a line longer than 64 KiB is redacted in the gate log and in `logs`", async () => {
  // A 70 KiB line, written in two parts a moment apart: the secret straddles the pause, after the
  // 64 KiB mark at which the redactor stops waiting for the end of the line.
  const print = `const secret = process.env.SERVICE_API_TOKEN;
process.stdout.write("x".repeat(70000) + secret.slice(0, 10));
setTimeout(() => process.stdout.write(secret.slice(10) + "y\\n"), 300);
`;
  const sandbox = await createSandbox({ "README.md": "# repo\n", "print.js": print });
  try {
    await sandbox.spec(`name: long-line
goal: the check passes
repo: ./repo
maker: { engine: scripted, turns: [{ write: { done.txt: "yes\\n" } }] }
gates:
  - { id: check, kind: tests-pass, run: "node print.js; ls | grep -q '^done[.]txt$'" }
budget: { maxIterations: 1 }
`);
    const run = await sandbox.cli(["run", join(sandbox.root, "loop.yaml")], { env: secretEnvironment });
    assert.equal(run.code, 0, run.stderr + run.stdout);
    const logs = await sandbox.cli(["logs", "long-line"]);
    assert.equal(logs.code, 0, logs.stderr);
    assert.match(logs.stdout, /x\[redacted:SERVICE_API_TOKEN\]y/);
    await assertNowhere(sandbox, [run.stdout, run.stderr, logs.stdout]);
  } finally {
    await sandbox.cleanup();
  }
});

test("the live progress strips the maker's terminal escapes: clipboard, title, screen clear, forged lines", async () => {
  const sandbox = await createSandbox({ "README.md": "# repo\n" });
  try {
    await sandbox.spec(`name: escapes
goal: done.txt exists
repo: ./repo
maker:
  engine: scripted
  turns:
    - say: "\\e]52;c;cm0gLXJmIH4=\\a\\e]0;owned\\a\\e[2J\\e[H\\rstopped: verified\\u009b31m"
      write: { done.txt: "yes\\n" }
gates:
  - { id: done, kind: tests-pass, run: "ls | grep -q '^done[.]txt$'" }
budget: { maxIterations: 1 }
`);
    const run = await sandbox.cli(["run", join(sandbox.root, "loop.yaml")]);
    assert.equal(run.code, 0, run.stderr + run.stdout);
    // biome-ignore lint/suspicious/noControlCharactersInRegex: the point is that none reach the terminal.
    assert.doesNotMatch(run.stdout, /[\x00-\x08\x0b-\x1f\x7f-\x9f]/, JSON.stringify(run.stdout));
    assert.match(run.stdout, /maker completed in .*stopped: verified/);
  } finally {
    await sandbox.cleanup();
  }
});

test("a LESSONS.md that is a FIFO or a link to a private file is left out of the brief; the loop goes on", async () => {
  const sandbox = await createSandbox({ "README.md": "# repo\n" });
  try {
    await sandbox.write({ "../private.txt": "PRIVATE-HOST-FILE\n" });
    await sandbox.spec(`name: fifo-lessons
goal: done.txt exists
repo: ./repo
maker:
  engine: scripted
  turns:
    - run: [mkfifo LESSONS.md]
    - run: [rm LESSONS.md, ln -s ${join(sandbox.root, "private.txt")} LESSONS.md]
    - write: { done.txt: "yes\\n" }
gates:
  - { id: done, kind: tests-pass, run: "ls | grep -q '^done[.]txt$'" }
budget: { maxIterations: 3 }
`);
    const run = await sandbox.cli(["run", join(sandbox.root, "loop.yaml")], { timeoutMs: 60_000 });
    assert.equal(run.code, 0, run.stderr + run.stdout);
    for (const iteration of ["2", "3"]) {
      const brief = await sandbox.cli(["brief", "fifo-lessons", "--iteration", iteration]);
      assert.equal(brief.code, 0, brief.stderr);
      assert.doesNotMatch(brief.stdout, /PRIVATE-HOST-FILE|Lessons from this repository/);
    }
  } finally {
    await sandbox.cleanup();
  }
});
