/**
 * A gate already green is reused only for exactly the content it graded, whatever trick changes that
 * content between two stops run back to back through the launcher `init claude` writes (the path Claude
 * Code takes, with the launcher's own `git status`): an edit that keeps the file's size and times, a
 * new file in a folder that was empty, a rename that swaps two files of the same size, a symbolic link
 * pointed elsewhere. These are the inputs any shortcut past `git status` (stat data, a cached answer)
 * must still answer as git does: each one here makes the gate fail, so a stop that reused the pass
 * would let Claude stop on red code.
 */
import assert from "node:assert/strict";
import { execFileSync, spawn } from "node:child_process";
import { mkdirSync, renameSync, statSync, symlinkSync, unlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { after, test } from "node:test";
import { createSandbox, type Sandbox } from "./support/loop-sandbox.ts";

/** The gate: math.js adds, and no file named bad* exists anywhere in the checkout. */
const gateScript = `grep -q 'a + b' math.js || exit 1
[ -z "$(find . -path ./.git -prune -o -path ./.loopwright -prune -o -name 'bad*' -print)" ]
`;
const spec = `name: hooked
goal: add() adds.
maker: { engine: command, run: "true" }
gates:
  - { id: tests, kind: tests-pass, run: "sh gate.sh" }
`;
// Same length, one character apart: a swap or an in-place edit keeps every size.
const right = "export const add = (a, b) => a + b;\n";
const wrong = "export const add = (a, b) => a - b;\n";
/** What is committed where a file must stay changed whichever of the two it holds. */
const committed = "export const add = (a, b) => a * b;\n";

const sandboxes: Sandbox[] = [];
after(() => Promise.all(sandboxes.map((sandbox) => sandbox.cleanup())));

/** A checkout with hook mode set up by `init claude`, `files` committed with it, and math.js right. */
async function hookedCheckout(files: Record<string, string> = {}): Promise<Sandbox> {
  const sandbox = await createSandbox({
    "math.js": right,
    "loop.yaml": spec,
    "gate.sh": gateScript,
    ...files,
  });
  delete sandbox.env.NODE_TEST_CONTEXT;
  sandboxes.push(sandbox);
  const init = await sandbox.cli(["init", "claude"]);
  assert.equal(init.code, 0, init.stderr);
  await sandbox.git("add", "-A");
  await sandbox.git("commit", "-q", "-m", "hook mode");
  return sandbox;
}

/** The launcher's answer to `event`, run as Claude Code runs it. */
function launcher(sandbox: Sandbox, event: string): Promise<Record<string, unknown>> {
  const child = spawn(join(sandbox.repo, ".loopwright", "hook"), [event], {
    cwd: sandbox.repo,
    env: { ...sandbox.env, CLAUDE_PROJECT_DIR: sandbox.repo },
  });
  let stdout = "";
  child.stdout.on("data", (chunk) => {
    stdout += chunk;
  });
  child.stdin.end(JSON.stringify({ session_id: "s1", cwd: sandbox.repo }));
  return new Promise((resolve, reject) => {
    child.on("error", reject);
    child.on("close", (code) => {
      if (code !== 0) return reject(new Error(`the launcher exited ${code}: ${stdout}`));
      resolve(JSON.parse(stdout));
    });
  });
}

/** Two stops that pass (the first runs the gate, the second reuses its pass): the pass is cached. */
async function greenTwice(sandbox: Sandbox): Promise<void> {
  assert.deepEqual(await launcher(sandbox, "stop"), {});
  assert.deepEqual(await launcher(sandbox, "stop"), {});
}

/**
 * Puts `from`'s access and modification times on `to`, to the nanosecond (`touch -r`: Node's utimes
 * takes seconds as a double, which drops the last digits).
 */
function copyTimes(from: string, to: string): void {
  execFileSync("touch", ["-h", "-r", from, to]);
}

/** Writes `content` over `path` in place (same inode), then puts its modification and access times back. */
async function editKeepingTimes(sandbox: Sandbox, path: string, content: string): Promise<void> {
  const full = join(sandbox.repo, path);
  const before = statSync(full, { bigint: true });
  assert.equal(BigInt(Buffer.byteLength(content)), before.size, "the edit keeps the size");
  const reference = join(sandbox.root, "times-reference");
  writeFileSync(reference, "");
  copyTimes(full, reference);
  await sandbox.write({ [path]: content });
  copyTimes(reference, full);
  const after = statSync(full, { bigint: true });
  assert.equal(after.mtimeNs, before.mtimeNs);
  assert.equal(after.ino, before.ino);
  assert.equal(after.size, before.size);
}

async function assertBlocked(sandbox: Sandbox, why: string): Promise<void> {
  const stop = await launcher(sandbox, "stop");
  assert.equal(stop.decision, "block", `${why}: ${JSON.stringify(stop)}`);
  assert.match(String(stop.reason), /gate `tests` failed/);
}

test("an edit of a committed file that keeps its size and times is graded again", async () => {
  const sandbox = await hookedCheckout();
  await sandbox.write({ "notes.txt": "a change, so that the work is open\n" });
  await greenTwice(sandbox);
  await editKeepingTimes(sandbox, "math.js", wrong);
  await assertBlocked(sandbox, "a clean tracked file edited in place");
});

test("an edit of a file already changed that keeps its size and times is graded again", async () => {
  const sandbox = await hookedCheckout({ "math.js": committed });
  await sandbox.write({ "math.js": right });
  await greenTwice(sandbox);
  await editKeepingTimes(sandbox, "math.js", wrong);
  await assertBlocked(sandbox, "a changed file edited in place");
});

test("a new untracked file in a folder that was there and empty is graded", async () => {
  const sandbox = await hookedCheckout();
  mkdirSync(join(sandbox.repo, "empty", "deeper"), { recursive: true });
  await sandbox.write({ "notes.txt": "a change\n" });
  await greenTwice(sandbox);
  // Only the innermost folder changes: its parent's times stay as they were.
  const parent = statSync(join(sandbox.repo, "empty")).mtimeMs;
  await sandbox.write({ "empty/deeper/bad.txt": "x\n" });
  assert.equal(statSync(join(sandbox.repo, "empty")).mtimeMs, parent);
  await assertBlocked(sandbox, "a new file in an empty folder");
});

test("two changed files of the same size and times swapped by renames are graded again", async () => {
  const sandbox = await hookedCheckout({ "math.js": committed, "spare.js": committed });
  // Both changed, both before and after the swap: the set of changed paths stays the same.
  await sandbox.write({ "math.js": right, "spare.js": wrong });
  copyTimes(join(sandbox.repo, "math.js"), join(sandbox.repo, "spare.js"));
  await greenTwice(sandbox);
  renameSync(join(sandbox.repo, "math.js"), join(sandbox.repo, "swap.tmp"));
  renameSync(join(sandbox.repo, "spare.js"), join(sandbox.repo, "math.js"));
  renameSync(join(sandbox.repo, "swap.tmp"), join(sandbox.repo, "spare.js"));
  await assertBlocked(sandbox, "a swap by renames");
});

test("a symbolic link pointed at another file of the same size is graded again", async () => {
  const sandbox = await hookedCheckout({ "impl/a.js": right, "impl/b.js": wrong });
  unlinkSync(join(sandbox.repo, "math.js"));
  symlinkSync("impl/a.js", join(sandbox.repo, "math.js"));
  await greenTwice(sandbox);
  // Same target length, so the link's own size stays; its times are put back: only its target changes.
  const reference = join(sandbox.root, "link-reference");
  symlinkSync("impl/a.js", reference);
  copyTimes(join(sandbox.repo, "math.js"), reference);
  unlinkSync(join(sandbox.repo, "math.js"));
  symlinkSync("impl/b.js", join(sandbox.repo, "math.js"));
  copyTimes(reference, join(sandbox.repo, "math.js"));
  await assertBlocked(sandbox, "a link pointed elsewhere");
});

test("the prompt's count of changed files follows a new file in an empty folder and a rename at once", async () => {
  const sandbox = await hookedCheckout();
  mkdirSync(join(sandbox.repo, "empty", "deeper"), { recursive: true });
  await sandbox.write({ "notes.txt": "a change\n" });
  await greenTwice(sandbox);
  const count = async () =>
    /(\d+) files? changed/.exec(JSON.stringify(await launcher(sandbox, "prompt")))?.[1];
  assert.equal(await count(), "1");
  await sandbox.write({ "empty/deeper/new.txt": "x\n" });
  assert.equal(await count(), "2");
  // A rename of a committed file: its old path deleted, its new one untracked (no rename detection).
  renameSync(join(sandbox.repo, "gate.sh"), join(sandbox.repo, "gate-renamed.sh"));
  assert.equal(await count(), "4");
});
