/**
 * `init claude --remove` without the install record (after `git clean -fdx`) takes out exactly what
 * hook mode wrote, recognised by its content, and a user's settings keep their own formatting, with
 * the record or without it. `init claude` tells the user when the loopwright plugin is enabled too.
 */
import assert from "node:assert/strict";
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { mkdir, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { after, describe, test } from "node:test";
import { createSandbox, type Sandbox } from "./support/loop-sandbox.ts";

const spec = `name: shop
goal: the shop works.
gates:
  - { id: tests, kind: tests-pass, run: "true" }
`;
/** The user's settings in their own formatting: 4 spaces, keys in their order. */
const userSettings = `{
    "model": "opus",
    "permissions": {
        "allow": [
            "Bash(npm test)"
        ]
    }
}
`;

const sandboxes: Sandbox[] = [];
after(() => Promise.all(sandboxes.map((sandbox) => sandbox.cleanup())));

async function checkout(files: Record<string, string> = {}): Promise<Sandbox> {
  const sandbox = await createSandbox({ "index.js": "export const x = 1;\n", "loop.yaml": spec, ...files });
  delete sandbox.env.NODE_TEST_CONTEXT;
  sandboxes.push(sandbox);
  return sandbox;
}

const read = (sandbox: Sandbox, path: string) => readFileSync(join(sandbox.repo, path), "utf8");

describe("--remove without the install record", () => {
  test("after git clean -fdx, every file hook mode created is gone and nothing else", async () => {
    const sandbox = await checkout();
    assert.equal((await sandbox.cli(["init", "claude"])).code, 0);
    await sandbox.git("add", "-A");
    await sandbox.git("commit", "-q", "-m", "hook mode");
    await sandbox.git("clean", "-fdxq");
    assert.equal(existsSync(join(sandbox.repo, ".loopwright")), false);
    const removed = await sandbox.cli(["init", "claude", "--remove"]);
    assert.equal(removed.code, 0, removed.stderr);
    assert.deepEqual(readdirSync(sandbox.repo).sort(), [".git", "index.js", "loop.yaml"]);
    assert.doesNotMatch(read(sandbox, ".git/info/exclude"), /loopwright/);
  });

  test("a file the user had keeps everything of theirs", async () => {
    const sandbox = await checkout({
      "CLAUDE.md": "# Shop\n\nUse two spaces.\n",
      "LESSONS.md": "# Lessons\n\n- Run the tests.\n",
      ".claude/settings.json": userSettings,
      ".claude/agents/mine.md": "---\nname: mine\n---\nMine.\n",
    });
    assert.equal((await sandbox.cli(["init", "claude"])).code, 0);
    await sandbox.git("add", "-A");
    await sandbox.git("commit", "-q", "-m", "hook mode");
    await sandbox.git("clean", "-fdxq");
    assert.equal((await sandbox.cli(["init", "claude", "--remove"])).code, 0);
    assert.equal(read(sandbox, "CLAUDE.md"), "# Shop\n\nUse two spaces.\n");
    assert.equal(read(sandbox, "LESSONS.md"), "# Lessons\n\n- Run the tests.\n");
    assert.equal(read(sandbox, ".claude/settings.json"), userSettings);
    assert.deepEqual(readdirSync(join(sandbox.repo, ".claude/agents")), ["mine.md"]);
  });
});

test("the user's formatting of settings.json survives init and --remove, and their later edits too", async () => {
  const sandbox = await checkout({ ".claude/settings.json": userSettings });
  assert.equal((await sandbox.cli(["init", "claude"])).code, 0);
  const installed = read(sandbox, ".claude/settings.json");
  assert.ok(installed.startsWith('{\n    "model": "opus",\n    "permissions": {'), installed);
  await writeFile(join(sandbox.repo, ".claude/settings.json"), installed.replace('"opus"', '"sonnet"'));
  assert.equal((await sandbox.cli(["init", "claude", "--remove"])).code, 0);
  assert.equal(read(sandbox, ".claude/settings.json"), userSettings.replace('"opus"', '"sonnet"'));
});

test("init claude says when the loopwright plugin is enabled for the user too", async () => {
  const sandbox = await checkout();
  await mkdir(join(sandbox.home, ".claude"), { recursive: true });
  await writeFile(
    join(sandbox.home, ".claude", "settings.json"),
    JSON.stringify({ enabledPlugins: { "loopwright@loopwright": true } }),
  );
  const init = await sandbox.cli(["init", "claude"], { env: { HOME: sandbox.home } });
  assert.equal(init.code, 0, init.stderr);
  assert.match(
    init.stdout,
    /plugin loopwright@loopwright is enabled too: .*its hooks step aside for the project's, so each hook runs once/,
  );
});
