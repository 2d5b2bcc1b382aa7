/**
 * The `every-stop` gates run at every stop, whatever opened the work (a Write, a Bash edit, or nothing:
 * a tree already red when the session starts), and a gate's pass is reused only for the exact content
 * it graded: the working tree (untracked files included), HEAD, the base, and the gate's command.
 * (The same under the real `claude` is in hook-mode-corners.test.ts.)
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { after, describe, test } from "node:test";
import { hookState, runHookProcess } from "./support/hook-runner.ts";
import { createSandbox, type Sandbox } from "./support/loop-sandbox.ts";

const spec = (run: string) => `name: hooked
goal: add() adds.
maker: { engine: command, run: "true" }
gates:
  - { id: tests, kind: tests-pass, run: "${run}" }
`;
const wrong = "export const add = (a, b) => a - b;\n";
const right = "export const add = (a, b) => a + b;\n";
/** The gate: math.js adds, and every file named check-*.txt says ok. */
const gate = "grep -q 'a + b' math.js && ! grep -L ok check-*.txt 2>/dev/null | grep -q .";

const sandboxes: Sandbox[] = [];
after(() => Promise.all(sandboxes.map((sandbox) => sandbox.cleanup())));

async function checkout(files: Record<string, string>): Promise<Sandbox> {
  const sandbox = await createSandbox(files);
  delete sandbox.env.NODE_TEST_CONTEXT;
  sandboxes.push(sandbox);
  return sandbox;
}

const hook = (sandbox: Sandbox, event: string, input: Record<string, unknown> = {}) =>
  runHookProcess(event, sandbox.repo, input, sandbox.env);

describe("the gates run at every stop", () => {
  test("a tree already red when the session starts is blocked at the first stop", async () => {
    const sandbox = await checkout({ "math.js": wrong, "loop.yaml": spec(gate) });
    const stop = await hook(sandbox, "stop", { last_assistant_message: "All done." });
    assert.equal(stop.output?.decision, "block");
    assert.match(stop.output?.reason ?? "", /gate `tests` failed/);
  });

  test("an edit made through Bash alone (no Write) is graded at the next stop", async () => {
    const sandbox = await checkout({ "math.js": right, "loop.yaml": spec(gate) });
    assert.deepEqual((await hook(sandbox, "stop")).output, {});
    await sandbox.write({ "math.js": wrong }); // as `sed -i` would
    const stop = await hook(sandbox, "stop");
    assert.equal(stop.output?.decision, "block");
    assert.ok(hookState(sandbox.repo).work, "the Bash edit opened the work, so its review is owed");
  });

  test("a new untracked file changes what the gate grades", async () => {
    const sandbox = await checkout({ "math.js": right, "loop.yaml": spec(gate) });
    assert.deepEqual((await hook(sandbox, "stop")).output, {});
    await sandbox.write({ "check-one.txt": "bad\n" });
    assert.equal((await hook(sandbox, "stop")).output?.decision, "block");
  });

  test("a changed gate command is run again, not taken from the cache", async () => {
    const sandbox = await checkout({ "math.js": right, "loop.yaml": spec(gate) });
    assert.deepEqual((await hook(sandbox, "stop")).output, {});
    await sandbox.commit({ "loop.yaml": spec("grep -q 'a \\\\* b' math.js") });
    assert.equal((await hook(sandbox, "stop")).output?.decision, "block");
  });
});

test("a pass on one base does not let a stop through on another base with the same change", async () => {
  const sandbox = await checkout({ "math.js": right, "loop.yaml": spec(gate), "check-base.txt": "ok\n" });
  await sandbox.git("checkout", "-q", "-b", "other");
  await sandbox.commit({ "check-base.txt": "bad on this branch\n" });
  await sandbox.git("checkout", "-q", "main");
  // On main: a change, opened by a Write, passes its gate.
  await sandbox.write({ "notes.txt": "a change\n" });
  await hook(sandbox, "post-tool", {
    tool_name: "Write",
    tool_input: { file_path: join(sandbox.repo, "notes.txt") },
  });
  assert.deepEqual((await hook(sandbox, "stop")).output, {});
  // The same change on the other branch: same diff, different base, and its tests fail there.
  await sandbox.git("stash", "-u", "-q");
  assert.deepEqual((await hook(sandbox, "stop")).output, {}, "no change: the work closes");
  await sandbox.git("checkout", "-q", "other");
  await sandbox.git("stash", "pop", "-q");
  await hook(sandbox, "post-tool", {
    tool_name: "Write",
    tool_input: { file_path: join(sandbox.repo, "notes.txt") },
  });
  const stop = await hook(sandbox, "stop");
  assert.equal(stop.output?.decision, "block");
  assert.match(stop.output?.reason ?? "", /gate `tests` failed/);
});
