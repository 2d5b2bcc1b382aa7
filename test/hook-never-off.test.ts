/**
 * Hook mode is never silently off: in a checkout where it is installed, a spec moved away or broken
 * is said on every prompt and stop; the kill switch is said on every prompt; the hook command in the
 * committed settings works in a fresh clone or says how to restore it; and the plugin steps aside
 * where the project's own hooks are installed, so each hook runs once.
 */
import assert from "node:assert/strict";
import { mkdir, rm, symlink, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { after, describe, test } from "node:test";
import { hookState, runHookProcess } from "./support/hook-runner.ts";
import { binary, createSandbox, type Sandbox } from "./support/loop-sandbox.ts";

const spec = `name: hooked
goal: add() adds.
gates:
  - { id: tests, kind: tests-pass, run: "grep -q 'a + b' math.js" }
`;
const wrong = "export const add = (a, b) => a - b;\n";

const sandboxes: Sandbox[] = [];
after(() => Promise.all(sandboxes.map((sandbox) => sandbox.cleanup())));

async function installed(): Promise<Sandbox> {
  const sandbox = await createSandbox({ "math.js": wrong, "loop.yaml": spec });
  delete sandbox.env.NODE_TEST_CONTEXT;
  sandboxes.push(sandbox);
  const init = await sandbox.cli(["init", "claude"]);
  assert.equal(init.code, 0, init.stderr);
  await sandbox.git("add", "-A");
  await sandbox.git("commit", "-q", "-m", "hook mode");
  return sandbox;
}

const hook = (sandbox: Sandbox, event: string, env: Record<string, string> = {}) =>
  runHookProcess(event, sandbox.repo, {}, { ...sandbox.env, ...env });

describe("an installed checkout says when hook mode cannot check", () => {
  test("loop.yaml moved away: every prompt and stop say so", async () => {
    const sandbox = await installed();
    await sandbox.git("mv", "loop.yaml", "elsewhere.yaml");
    for (const event of ["prompt", "stop", "prompt", "stop"]) {
      const run = await hook(sandbox, event);
      assert.match(
        run.output?.systemMessage ?? "",
        /hook mode is set up here but loop\.yaml is missing .*NOT checked.*git checkout HEAD -- loop\.yaml/,
        event,
      );
    }
  });

  test("loop.yaml deleted in a checkout whose record is gone (git clean) is still said", async () => {
    const sandbox = await installed();
    await rm(join(sandbox.repo, ".loopwright"), { recursive: true });
    await rm(join(sandbox.repo, "loop.yaml"));
    assert.match((await hook(sandbox, "stop")).output?.systemMessage ?? "", /loop\.yaml is missing/);
  });

  test("a broken loop.yaml: every prompt and stop say so", async () => {
    const sandbox = await installed();
    await sandbox.write({ "loop.yaml": "gates: [" });
    for (const event of ["prompt", "stop"])
      assert.match((await hook(sandbox, event)).output?.systemMessage ?? "", /NOT checked/, event);
  });

  test("the kill switch: every prompt tells the user and the status line tells the model", async () => {
    const sandbox = await installed();
    await writeFile(join(sandbox.repo, ".loopwright", "off"), "");
    const run = await hook(sandbox, "prompt");
    assert.match(run.output?.systemMessage ?? "", /hook mode is OFF here .*\.loopwright\/off/);
    assert.match(
      run.output?.hookSpecificOutput?.additionalContext ?? "",
      /hook mode is off in this checkout/,
    );
  });
});

describe("the committed hook command in a fresh clone", () => {
  /** Runs the hook command exactly as the settings hold it, in `checkout`, as Claude Code would. */
  async function settingsCommand(checkout: string, event: string, env: NodeJS.ProcessEnv) {
    const { readFileSync } = await import("node:fs");
    const settings = JSON.parse(readFileSync(join(checkout, ".claude", "settings.json"), "utf8"));
    const eventName = { stop: "Stop", prompt: "UserPromptSubmit" }[event] ?? event;
    const command: string = settings.hooks[eventName][0].hooks[0].command;
    const { spawnSync } = await import("node:child_process");
    const result = spawnSync("sh", ["-c", command], {
      cwd: checkout,
      env: { ...env, CLAUDE_PROJECT_DIR: checkout, PATH: "/usr/bin:/bin" },
      input: JSON.stringify({ cwd: checkout, session_id: "s1" }),
      encoding: "utf8",
    });
    return { code: result.status, output: JSON.parse(result.stdout) };
  }

  test("a git worktree and git clean -fdx lose the launcher too: each says how to restore", async () => {
    const sandbox = await installed();
    const worktree = join(sandbox.root, "worktree");
    await sandbox.git("worktree", "add", "-q", worktree);
    await sandbox.git("clean", "-fdxq");
    for (const checkout of [worktree, sandbox.repo]) {
      const run = await settingsCommand(checkout, "prompt", sandbox.env);
      assert.equal(run.code, 0);
      assert.match(
        run.output.systemMessage,
        /no launcher and no loopwright.*loopwright init claude/,
        checkout,
      );
    }
  });

  test("without launcher or loopwright it says how to restore; with the project's dependency it works", async () => {
    const sandbox = await installed();
    const clone = join(sandbox.root, "clone");
    await sandbox.git("clone", "-q", sandbox.repo, clone);
    const bare = await settingsCommand(clone, "stop", sandbox.env);
    assert.equal(bare.code, 0);
    assert.match(
      bare.output.systemMessage,
      /no launcher and no loopwright.*nothing was checked.*loopwright init claude/,
    );
    // As `npm install` would, with loopwright as a dev dependency.
    await mkdir(join(clone, "node_modules", ".bin"), { recursive: true });
    await symlink(binary, join(clone, "node_modules", ".bin", "loopwright"));
    const { dirname } = await import("node:path");
    const withNode = { ...sandbox.env, PATH: `${dirname(process.execPath)}:/usr/bin:/bin` };
    const { spawnSync } = await import("node:child_process");
    const { readFileSync } = await import("node:fs");
    const command: string = JSON.parse(readFileSync(join(clone, ".claude", "settings.json"), "utf8")).hooks
      .Stop[0].hooks[0].command;
    const run = spawnSync("sh", ["-c", command], {
      cwd: clone,
      env: { ...withNode, CLAUDE_PROJECT_DIR: clone },
      input: JSON.stringify({ cwd: clone, session_id: "s1" }),
      encoding: "utf8",
    });
    assert.equal(JSON.parse(run.stdout).decision, "block", run.stdout + run.stderr);
  });
});

test("the plugin's hooks step aside where the project's hooks are installed", async () => {
  const sandbox = await installed();
  const plugin = { LOOPWRIGHT_HOOK_SOURCE: "plugin" };
  const [project, fromPlugin] = await Promise.all([hook(sandbox, "stop"), hook(sandbox, "stop", plugin)]);
  assert.equal(project.output?.decision, "block");
  assert.deepEqual(fromPlugin.output, {});
  assert.equal(hookState(sandbox.repo).totals.stops, 1);
  assert.equal(hookState(sandbox.repo).blocks, 1);
});
