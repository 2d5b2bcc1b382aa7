/**
 * Secrets never leave, end to end through the real CLI: a maker plants a known secret value through
 * every path it has (a gate's very long line, LESSONS.md, source, `.env`), and afterwards the value is
 * nowhere: not in any file of the state folder (the SQLite database and its WAL included), not on
 * stdout, not in `logs`, `brief` or `show`, not in the user's object store and not on the pushed remote.
 * The change that held it is a blocking `secret-in-change` finding naming the file and line.
 */
import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import { readdir, readFile } from "node:fs/promises";
import { join } from "node:path";
import { test } from "node:test";
import { promisify } from "node:util";
import { createSandbox, type Sandbox } from "./support/loop-sandbox.ts";

const execFileAsync = promisify(execFile);
const secret = `sk-plant-${Math.random().toString(16).slice(2)}${Date.now().toString(16)}`;
const secretEnvironment = { SERVICE_API_TOKEN: secret };

/** Every file under `folder` whose bytes contain `needle`. */
async function filesContaining(folder: string, needle: string): Promise<string[]> {
  const found: string[] = [];
  const entries = await readdir(folder, { recursive: true, withFileTypes: true });
  for (const entry of entries) {
    if (!entry.isFile()) continue;
    const path = join(entry.parentPath, entry.name);
    const bytes = await readFile(path).catch(() => Buffer.alloc(0));
    if (bytes.includes(needle)) found.push(path);
  }
  return found;
}

/** Every object of a repository, decompressed, as one text (blobs, trees, commits). */
async function allObjects(gitDirectory: string): Promise<string> {
  const { stdout } = await execFileAsync(
    "git",
    ["--git-dir", gitDirectory, "cat-file", "--batch-all-objects", "--batch", "--unordered"],
    { maxBuffer: 256 * 1024 * 1024, encoding: "latin1" },
  );
  return stdout;
}

async function assertNowhere(sandbox: Sandbox, outputs: string[], remote?: string): Promise<void> {
  assert.deepEqual(await filesContaining(sandbox.home, secret), [], "no file of the state folder holds it");
  for (const output of outputs) assert.ok(!output.includes(secret), `printed: ${output.slice(0, 200)}`);
  assert.ok(!(await allObjects(join(sandbox.repo, ".git"))).includes(secret), "not in the user's objects");
  if (remote) assert.ok(!(await allObjects(remote)).includes(secret), "not on the pushed remote");
}

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
  - { id: check, kind: tests-pass, run: "node print.js; test -f done.txt" }
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
  - { id: done, kind: tests-pass, run: "test -f done.txt" }
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
