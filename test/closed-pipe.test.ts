/**
 * `loopwright ls | head -1`: a reader that closes the pipe early must not make loopwright print an
 * EPIPE stack trace. Each test closes a real pipe before the CLI writes to it.
 */
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { test } from "node:test";
import { binary, createSandbox, type Sandbox } from "./support/loop-sandbox.ts";

/** Runs the CLI with its stdout a pipe whose reading end is closed before the CLI writes anything. */
async function runIntoClosedPipe(
  sandbox: Sandbox,
  args: string[],
): Promise<{ code: number | null; signal: string | null; stderr: string }> {
  const child = spawn(process.execPath, [binary, ...args], {
    cwd: sandbox.repo,
    env: sandbox.env,
    stdio: ["ignore", "pipe", "pipe"],
  });
  child.stdout.destroy();
  let stderr = "";
  child.stderr.on("data", (chunk) => {
    stderr += chunk;
  });
  return new Promise((resolve) => {
    child.on("close", (code, signal) => resolve({ code, signal, stderr }));
  });
}

test("ls, show, report and logs into a pipe closed early exit quietly, without an EPIPE stack trace", async () => {
  const sandbox = await createSandbox();
  try {
    const spec = await sandbox.spec(`name: piped
goal: answer.txt says 42.
repo: ./repo
maker: { engine: scripted, turns: [{ write: { answer.txt: "42\\n" } }] }
gates: [{ id: chatty, kind: tests-pass, run: "seq 1 200000; grep -qx 42 answer.txt" }]
`);
    const run = await sandbox.cli(["run", spec]);
    assert.equal(run.code, 0, run.stdout + run.stderr);
    for (const args of [
      ["ls"],
      ["ls", "--json"],
      ["show", "piped"],
      ["report", "piped"],
      ["logs", "piped"],
      ["brief", "piped"],
    ]) {
      const result = await runIntoClosedPipe(sandbox, args);
      assert.equal(result.stderr, "", `${args.join(" ")}: ${result.stderr}`);
      assert.equal(result.code, 0, `${args.join(" ")} exited ${result.code} (${result.signal})`);
    }
  } finally {
    await sandbox.cleanup();
  }
});

test("a loop run into a pipe closed early still runs to its end, quietly", async () => {
  const sandbox = await createSandbox();
  try {
    const spec = await sandbox.spec(`name: headless
goal: answer.txt says 42.
repo: ./repo
maker: { engine: scripted, turns: [{ write: { answer.txt: "42\\n" } }] }
gates: [{ id: done, kind: tests-pass, run: "grep -qx 42 answer.txt" }]
`);
    const result = await runIntoClosedPipe(sandbox, ["run", spec]);
    assert.equal(result.stderr, "");
    assert.equal(result.code, 0);
    const show = await sandbox.cli(["show", "headless", "--json"]);
    assert.equal(JSON.parse(show.stdout).stopReason, "verified");
  } finally {
    await sandbox.cleanup();
  }
});

test("an error message into a closed stderr (2>&1 | head) still exits with its own code, not a crash", async () => {
  const sandbox = await createSandbox();
  try {
    const child = spawn(process.execPath, [binary, "show", "no-such-loop"], {
      cwd: sandbox.repo,
      env: sandbox.env,
      stdio: ["ignore", "pipe", "pipe"],
    });
    child.stdout.destroy();
    child.stderr.destroy();
    const code = await new Promise((resolve) => child.on("close", (exit) => resolve(exit)));
    assert.equal(code, 2, "a loop that does not exist is a usage error, exit 2");
  } finally {
    await sandbox.cleanup();
  }
});

test("a hook whose answer's reader has gone exits 0 quietly (its promise: exit 0 whatever happens)", async () => {
  const sandbox = await createSandbox();
  try {
    const hook = await runIntoClosedPipe(sandbox, ["hook", "check"]);
    assert.equal(hook.signal, null);
    assert.equal(hook.code, 0, hook.stderr);
    assert.doesNotMatch(hook.stderr, /EPIPE|Error/);
  } finally {
    await sandbox.cleanup();
  }
});
