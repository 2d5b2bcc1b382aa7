import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import { delimiter, join } from "node:path";
import { test } from "node:test";
import { promisify } from "node:util";
import { binary } from "./support/loop-sandbox.ts";

const run = promisify(execFile);
const bin = join(new URL("../node_modules/.bin", import.meta.url).pathname);

async function demo(...args: string[]) {
  const { NODE_TEST_CONTEXT: _context, ...env } = process.env;
  return run(process.execPath, [binary, "demo", ...args], {
    env: { ...env, PATH: `${bin}${delimiter}${env.PATH ?? ""}` },
    timeout: 240_000,
  });
}

test("the demo runs a real loop with the scripted engine: a red iteration, then verified", async () => {
  const { stdout } = await demo();
  assert.match(stdout, /✗ tests \(base commit\) exit 1/);
  assert.match(stdout, /iteration 1: failed: gates failed: tests/);
  assert.match(stdout, /iteration 2: verified/);
  assert.match(stdout, /\| tests \| tests-pass \| ✓ pass \| failed \(2 tests\) \|/);
});

for (const engine of ["claude-code", "codex", "copilot"]) {
  test(`demo --engine ${engine} rehearses the loop with the real CLI against the scripted model`, async () => {
    const { stdout } = await demo("--engine", engine);
    assert.match(stdout, new RegExp(`demo: ${engine} makes`));
    assert.match(stdout, /iteration 1: failed/);
    assert.match(stdout, /iteration 2: verified/);
    assert.match(stdout, /stopped: verified/);
  });
}

test("demo --engine refuses an engine it cannot rehearse", async () => {
  await assert.rejects(demo("--engine", "gpt-pilot"), (error: { code?: number; stderr?: string }) => {
    assert.equal(error.code, 2);
    assert.match(error.stderr ?? "", /--engine: one of claude-code, codex, copilot/);
    return true;
  });
});
