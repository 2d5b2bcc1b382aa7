import assert from "node:assert/strict";
import { existsSync } from "node:fs";
import { mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, test } from "node:test";
import { cutTail } from "../src/core/output-tail.ts";
import { createLineRedactor, createRedactor } from "../src/core/redact.ts";
import { runCommand } from "../src/process/run-command.ts";
import { findTaggedProcesses, stepTagVariable, sweepTaggedProcesses } from "../src/process/sweep.ts";
import { isAlive } from "./support/surviving-processes.ts";
import { waitFor } from "./support/wait-for.ts";

const onLinux = process.platform === "linux";

let folder: string;
before(async () => {
  folder = await mkdtemp(join(tmpdir(), "loopwright-run-command-"));
});
after(async () => {
  await rm(folder, { recursive: true, force: true });
});

const base = { timeoutMs: 0, runId: "run-test", stepId: "step" };

describe("runCommand", () => {
  test("keeps stdout apart from stderr and merges both into the tail", async () => {
    const outcome = await runCommand({
      ...base,
      cwd: folder,
      command: "echo out; echo err >&2; echo more-out",
      captureStdout: true,
    });
    assert.equal(outcome.exitCode, 0);
    assert.equal(outcome.stdout, "out\nmore-out\n");
    assert.match(outcome.tail, /err/);
    assert.match(outcome.tail, /more-out/);
  });

  test("delivers stdin and closes it", async () => {
    const outcome = await runCommand({
      ...base,
      cwd: folder,
      command: "cat; echo done",
      stdin: "hello\nworld\n",
      captureStdout: true,
    });
    assert.equal(outcome.stdout, "hello\nworld\ndone\n");
  });

  test("exports the run and step tags to the command", async () => {
    const outcome = await runCommand({
      ...base,
      stepId: "iteration-1:maker",
      cwd: folder,
      command: 'echo "$LOOPWRIGHT_RUN_ID|$LOOPWRIGHT_STEP_TAG"',
      captureStdout: true,
    });
    assert.equal(outcome.stdout, "run-test|run-test:iteration-1:maker\n");
  });

  test("a missing working directory is a spawn error, not an exception", async () => {
    const outcome = await runCommand({ ...base, cwd: join(folder, "nowhere"), command: "true" });
    assert.match(outcome.spawnError ?? "", /does not exist/);
    assert.equal(outcome.exitCode, null);
  });

  test("redacts secrets in the log, the tail and stdout, even one split across two writes", async () => {
    const env = { API_TOKEN: "tok-0123456789abcdef" };
    const logPath = join(folder, "secret.log");
    const outcome = await runCommand({
      ...base,
      cwd: folder,
      env,
      redact: createRedactor(env),
      logPath,
      captureStdout: true,
      // The sleep makes the two halves arrive as two separate chunks.
      command: `printf 'before tok-01234'; sleep 0.2; printf '56789abcdef after\\n'; echo "$API_TOKEN" >&2`,
    });
    const log = await readFile(logPath, "utf8");
    for (const text of [log, outcome.tail, outcome.stdout ?? ""]) {
      assert.doesNotMatch(text, /0123456789/);
      assert.match(text, /\[redacted:API_TOKEN\]/);
    }
    assert.match(outcome.stdout ?? "", /^before \[redacted:API_TOKEN\] after\n$/);
  });

  test("a timeout kills the whole tree, including a child that ignores SIGTERM", {
    skip: !onLinux,
  }, async () => {
    const pids = join(folder, "timeout-pids");
    const outcome = await runCommand({
      ...base,
      stepId: "timeout",
      cwd: folder,
      timeoutMs: 300,
      killGraceMs: 200,
      command: `sleep 300 & echo $! >> ${pids}; sh -c 'trap "" TERM; sleep 300' & echo $! >> ${pids}; wait`,
    });
    assert.equal(outcome.timedOut, true);
    assert.equal(outcome.cancelled, false);
    assert.equal(outcome.exitCode, null);
    const started = (await readFile(pids, "utf8")).trim().split("\n").map(Number);
    assert.equal(started.length, 2);
    for (const pid of started) assert.equal(isAlive(pid), false, `pid ${pid} survived`);
    assert.deepEqual(
      findTaggedProcesses(stepTagVariable, (value) => value === "run-test:timeout"),
      [],
    );
  });

  test("an abort mid-run ends the command and reports it cancelled", {
    skip: !onLinux,
    timeout: 5000,
  }, async () => {
    const controller = new AbortController();
    const pidFile = join(folder, "abort-pid");
    const running = runCommand({
      ...base,
      stepId: "abort",
      cwd: folder,
      signal: controller.signal,
      command: `sleep 300 & echo $! > ${pidFile}; wait`,
    });
    await waitFor(() => existsSync(pidFile), "the pid file", 2_000);
    const pid = Number(await readFile(pidFile, "utf8"));
    controller.abort();
    const outcome = await running;
    assert.equal(outcome.cancelled, true);
    assert.equal(outcome.timedOut, false);
    assert.equal(isAlive(pid), false);
  });

  test("a daemon that escaped with setsid is killed after a normal exit and reported", {
    skip: !onLinux,
  }, async () => {
    const pidFile = join(folder, "daemon-pid");
    const outcome = await runCommand({
      ...base,
      stepId: "daemon",
      cwd: folder,
      // The daemon keeps our stdout pipe open; the command waits until it is up, then exits 0.
      command: `setsid sh -c 'echo $$ > ${pidFile}.tmp; mv ${pidFile}.tmp ${pidFile}; exec sleep 300' & while [ ! -s ${pidFile} ]; do sleep 0.02; done; echo started`,
    });
    const pid = Number(await readFile(pidFile, "utf8"));
    assert.equal(outcome.exitCode, 0);
    assert.match(outcome.tail, /started/);
    assert.ok(outcome.survivorsKilled.includes(pid), `expected ${pid} in ${outcome.survivorsKilled}`);
    assert.equal(isAlive(pid), false);
  });
});

describe("sweepTaggedProcesses", () => {
  test("kills only processes with a matching tag and never itself", { skip: !onLinux }, async () => {
    // `exec`: one tagged process from the start, so the set found before the sweep cannot still be growing.
    const tagged = runCommand({ ...base, stepId: "sweep-me", cwd: folder, command: "exec sleep 300" });
    const other = runCommand({ ...base, stepId: "leave-me", cwd: folder, command: "sleep 0.5" });
    let found: number[] = [];
    await waitFor(
      () => {
        found = findTaggedProcesses(stepTagVariable, (value) => value === "run-test:sweep-me");
        return found.length > 0;
      },
      "the tagged sleep to start",
      2_000,
    );
    assert.ok(found.length >= 1);
    const killed = await sweepTaggedProcesses(stepTagVariable, (value) => value.startsWith("run-test:sweep"));
    assert.deepEqual(killed, found);
    assert.equal((await tagged).signal, "SIGKILL");
    assert.equal((await other).exitCode, 0);
  });
});

describe("redaction", () => {
  test("replaces secret-looking variables of 8+ characters, longest first", () => {
    const redact = createRedactor({
      GITHUB_TOKEN: "ghp_abcdefgh",
      OPENAI_API_KEY: "ghp_abcdefgh-longer",
      DB_PASSWORD: "short",
      GIT_AUTHOR_NAME: "Jane Developer",
      HOME: "/home/someone",
    });
    assert.equal(
      redact("a ghp_abcdefgh-longer b ghp_abcdefgh c short Jane Developer /home/someone"),
      "a [redacted:OPENAI_API_KEY] b [redacted:GITHUB_TOKEN] c short Jane Developer /home/someone",
    );
  });

  test("redacts a multi-line secret even when seen one line at a time", () => {
    const key = "-----BEGIN KEY-----\nAAAABBBBCCCCDDDD\n-----END KEY-----";
    const redact = createRedactor({ SSH_PRIVATE_KEY: key });
    assert.equal(redact(`x ${key} y`), "x [redacted:SSH_PRIVATE_KEY] y");
    assert.doesNotMatch(redact("AAAABBBBCCCCDDDD\n"), /AAAA/);
  });

  test("the line redactor holds a partial line until it is complete", () => {
    const lines = createLineRedactor(createRedactor({ SECRET: "supersecret-value" }));
    assert.equal(lines.push("one\ntwo super"), "one\n");
    assert.equal(lines.push("secret-val"), "");
    assert.equal(lines.push("ue three\nfour"), "two [redacted:SECRET] three\n");
    assert.equal(lines.flush(), "four");
  });
});

describe("cutTail", () => {
  test("keeps the last 4 KiB from a line boundary", () => {
    const text = Array.from({ length: 2000 }, (_, index) => `line ${index}`).join("\n");
    const tail = cutTail(text);
    assert.ok(Buffer.byteLength(tail) <= 4096);
    assert.match(tail, /^line \d+\n/);
    assert.ok(tail.endsWith("line 1999"));
    assert.equal(cutTail("short\n"), "short\n");
  });
});

test("commands never inherit node's test-runner context (a `node --test` gate would skip every test)", async () => {
  process.env.NODE_TEST_CONTEXT ??= "child-v8";
  const outcome = await runCommand({ ...base, command: 'test -z "$NODE_TEST_CONTEXT"', cwd: tmpdir() });
  assert.equal(outcome.exitCode, 0);
});
