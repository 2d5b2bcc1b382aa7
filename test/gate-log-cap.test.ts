/**
 * Gate logs are bounded and a log that cannot be written is a recorded gate error: a gate printing
 * without end (`yes`) leaves a log of at most the cap (head and tail kept, the cut said), and a log
 * on a full disk (ENOSPC, here /dev/full) neither crashes the controller nor loses the gate's result.
 */
import assert from "node:assert/strict";
import { readFile, stat } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { DatabaseSync } from "node:sqlite";
import { test } from "node:test";
import { runCommand } from "../src/process/run-command.ts";
import { createSandbox } from "./support/loop-sandbox.ts";

const sixteenMebibytes = 16 * 1024 * 1024;

test("a gate that prints without end leaves a log of at most 16 MiB, head and tail kept, the cut said", async () => {
  const sandbox = await createSandbox({ "README.md": "# repo\n" });
  try {
    await sandbox.spec(`name: endless
goal: done.txt exists
repo: ./repo
maker: { engine: scripted, turns: [{ write: { done.txt: "yes\\n" } }] }
gates:
  - { id: done, kind: tests-pass, run: "ls | grep -q '^done[.]txt$'" }
  - { id: chatty, kind: lint-clean, required: false, run: "echo FIRST-LINE; if ls | grep -q '^done[.]txt$'; then yes; fi; echo never", timeout: 4s }
budget: { maxIterations: 1 }
`);
    const run = await sandbox.cli(["run", join(sandbox.root, "loop.yaml")]);
    assert.notEqual(run.code, 1, run.stderr + run.stdout);
    const summary = JSON.parse((await sandbox.cli(["show", "endless", "--json"])).stdout);
    const logPath = join(sandbox.home, "loops", summary.id, "iterations", "1", "gates-grade", "chatty.log");
    const size = (await stat(logPath)).size;
    assert.ok(size <= sixteenMebibytes + 4096, `log of ${size} bytes`);
    assert.ok(size > sixteenMebibytes - 4096, `both halves kept: ${size} bytes`);
    const log = await readFile(logPath, "utf8");
    assert.match(log, /^\$ echo FIRST-LINE/);
    assert.match(log, /\nFIRST-LINE\ny\n/);
    assert.match(
      log,
      /\n\[loopwright\] \d+ bytes \([\d.]+ MiB\) of output cut here: the log keeps its first and last 8 MiB\n/,
    );
    assert.match(log, /y\n# timed out after/);
    process.stdout.write(`# yes for 4 s: log ${size} bytes\n`);
  } finally {
    await sandbox.cleanup();
  }
});

test("a log on a full disk (ENOSPC) is reported as data; the command's result stands", async () => {
  const outcome = await runCommand({
    command: "echo hello; exit 3",
    cwd: tmpdir(),
    timeoutMs: 10_000,
    logPath: "/dev/full",
    runId: "log-cap-test",
    stepId: "full-disk",
  });
  assert.equal(outcome.exitCode, 3);
  assert.equal(outcome.tail, "hello\n");
  assert.equal(outcome.logError, "log not written: ENOSPC (/dev/full)");
});

test("a gate log the maker replaced by a link (to /dev/full) is not followed: a recorded gate error, the loop goes on", async () => {
  const sandbox = await createSandbox({ "README.md": "# repo\n" });
  try {
    await sandbox.spec(`name: linked-log
goal: done.txt exists
repo: ./repo
maker:
  engine: scripted
  turns:
    - run: ["mkdir -p ../../iterations/1/gates-grade && ln -sfn /dev/full ../../iterations/1/gates-grade/done.log"]
      write: { done.txt: "yes\\n" }
gates:
  - { id: done, kind: tests-pass, run: "ls | grep -q '^done[.]txt$' && echo all good" }
budget: { maxIterations: 2 }
`);
    // Without the OS sandbox, which would stop the maker writing outside its checkout: this is the layer below it.
    const run = await sandbox.cli(["run", join(sandbox.root, "loop.yaml")], {
      timeoutMs: 60_000,
      env: { LOOPWRIGHT_SANDBOX: "off" },
    });
    assert.doesNotMatch(run.stderr, /internal error/, run.stderr);
    assert.equal(run.code, 0, run.stderr + run.stdout);
    const logs = await sandbox.cli(["logs", "linked-log", "--iteration", "1", "--gate", "done"], {
      timeoutMs: 20_000,
    });
    assert.equal(logs.code, 0, logs.stderr);
    assert.match(logs.stdout, /\(log not readable: .*done\.log: is a symbolic link, not a file\)/);
    const database = new DatabaseSync(join(sandbox.home, "loopwright.db"), { readOnly: true });
    const errors = database
      .prepare("SELECT json_extract(data, '$.result.error') AS error FROM events WHERE type = 'gate_ended'")
      .all()
      .map((row) => row.error);
    database.close();
    assert.ok(
      errors.some((error) => /^log not written: ELOOP \(.*done\.log\)$/.test(String(error))),
      JSON.stringify(errors),
    );
  } finally {
    await sandbox.cleanup();
  }
});
