/**
 * (g) `loopwright init claude` in a user's checkout: it merges into what is there, a second run
 * changes nothing, the hooks it writes work under the real `claude` whatever `node` comes first on
 * PATH, and `--remove` gives every file back as it was. Also: plain `init [directory]` still works.
 */

import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import { chmod, mkdir, writeFile } from "node:fs/promises";
import { delimiter, join, relative } from "node:path";
import { after, before, describe, test } from "node:test";
import { promisify } from "node:util";
import { projectHookCommand } from "../src/hooks/install/hook-command.ts";
import { type MockModel, startMockModel } from "../src/mock-model/server.ts";
import { agentCliEnvironment } from "./support/agent-cli-env.ts";
import { hookAnswers, runClaudeSession } from "./support/claude-session.ts";
import { runHookProcess } from "./support/hook-runner.ts";
import { createSandbox, type Sandbox } from "./support/loop-sandbox.ts";

const execFileAsync = promisify(execFile);
const binaries = new URL("../node_modules/.bin", import.meta.url).pathname;

const spec = `name: shop
goal: the shop works.
maker: { engine: command, run: "true" }
gates:
  - { id: tests, kind: tests-pass, run: "node --test" }
  - { id: build, kind: build-succeeds, run: "node --check index.js", hook: on-close }
  - { id: docs, kind: agent-check, assert: "the README explains every option" }
`;
/** The user's own settings, in their own formatting (4 spaces), with a Stop hook of their own. */
const userSettings = `{
    "permissions": { "allow": ["Bash(npm test)"] },
    "hooks": {
        "Stop": [{ "hooks": [{ "type": "command", "command": "touch \\"$CLAUDE_PROJECT_DIR\\"/user-stop-ran" }] }]
    }
}
`;
const userInstructions = "# Shop\n\nUse two spaces. Never touch vendor/.\n";

let server: MockModel;
const sandboxes: Sandbox[] = [];
before(async () => {
  server = await startMockModel({
    script: {
      conversations: [{ name: "init-check", when: { contains: "INIT-CHECK" }, turns: [{ text: "Hello." }] }],
    },
  });
});
after(async () => {
  await server.close();
  await Promise.all(sandboxes.map((sandbox) => sandbox.cleanup()));
});

async function userCheckout(files: Record<string, string> = {}): Promise<Sandbox> {
  const sandbox = await createSandbox({
    "index.js": "export const total = (items) => items.length;\n",
    "loop.yaml": spec,
    ".claude/settings.json": userSettings,
    "CLAUDE.md": userInstructions,
    ...files,
  });
  delete sandbox.env.NODE_TEST_CONTEXT;
  sandboxes.push(sandbox);
  return sandbox;
}

/** Every file of the checkout (not .git, but its info/exclude), path → content. */
function snapshot(repo: string): Map<string, string> {
  const files = new Map<string, string>();
  const walk = (folder: string) => {
    for (const entry of readdirSync(folder)) {
      const path = join(folder, entry);
      if (path === join(repo, ".git")) continue;
      if (statSync(path).isDirectory()) walk(path);
      else files.set(relative(repo, path), readFileSync(path, "utf8"));
    }
  };
  walk(repo);
  files.set(".git/info/exclude", readFileSync(join(repo, ".git", "info", "exclude"), "utf8"));
  return files;
}

describe("init claude", () => {
  test("merges, is idempotent, works under the real claude with any node on PATH, and --remove restores every file", async () => {
    const sandbox = await userCheckout();
    const original = snapshot(sandbox.repo);

    const first = await sandbox.cli(["init", "claude"]);
    assert.equal(first.code, 0, first.stderr);
    assert.match(first.stdout, /launcher \.loopwright\/hook: Node\.js v2\d\./);
    const installed = snapshot(sandbox.repo);

    const settings = JSON.parse(installed.get(".claude/settings.json") ?? "");
    assert.deepEqual(settings.permissions, { allow: ["Bash(npm test)"] });
    assert.match(
      settings.hooks.Stop[0].hooks[0].command,
      /user-stop-ran/,
      "the user's Stop hook comes first, kept",
    );
    assert.equal(settings.hooks.Stop[1].hooks[0].command, projectHookCommand("stop"));
    assert.equal(settings.hooks.PostToolUse[0].matcher, "Write|Edit|MultiEdit|NotebookEdit");
    assert.equal(settings.hooks.PreToolUse[0].matcher, "Write|Edit|MultiEdit|NotebookEdit|Bash");
    assert.equal(settings.hooks.SubagentStop[0].hooks[0].command, projectHookCommand("subagent-stop"));
    assert.equal(settings.hooks.UserPromptSubmit[0].hooks[0].command, projectHookCommand("prompt"));

    const instructions = installed.get("CLAUDE.md") ?? "";
    assert.ok(instructions.startsWith(userInstructions));
    assert.match(instructions, /## Definition of Done/);
    assert.match(instructions, /`tests` \(tests-pass\): `node --test`, at every stop/);
    assert.match(instructions, /`build` \(build-succeeds\): `node --check index\.js`, when the work closes/);
    assert.match(instructions, /the README explains every option/);
    assert.match(
      installed.get(".claude/agents/loopwright-reviewer.md") ?? "",
      /^---\nname: loopwright-reviewer\n[\s\S]*tools: Read, Grep, Glob\n---/,
    );
    assert.match(
      installed.get(".claude/agents/loopwright-reviewer.md") ?? "",
      /\[CRITICAL\] path:line message/,
    );
    assert.match(installed.get("LESSONS.md") ?? "", /one imperative line per lesson/i);
    assert.match(installed.get(".git/info/exclude") ?? "", /^\/\.loopwright\/$/m);
    assert.equal(
      await sandbox.git("status", "--porcelain", "--", ".loopwright"),
      "",
      "git ignores .loopwright/",
    );

    const second = await sandbox.cli(["init", "claude"]);
    assert.equal(second.code, 0, second.stderr);
    assert.match(second.stdout, /already set up; nothing changed/);
    assert.deepEqual(snapshot(sandbox.repo), installed);

    // The real claude runs both the user's hook and ours, with a broken `node` first on PATH.
    const fakeBin = join(sandbox.root, "fake-bin");
    await mkdir(fakeBin);
    await writeFile(join(fakeBin, "node"), "#!/bin/sh\necho 'node v18.0.0: too old' >&2\nexit 1\n");
    await chmod(join(fakeBin, "node"), 0o755);
    const env = {
      ...sandbox.env,
      ...(await agentCliEnvironment(server.url, ["claude-code"])),
      PATH: `${fakeBin}${delimiter}${binaries}${delimiter}${process.env.PATH}`,
    };
    const run = await runClaudeSession(sandbox.repo, ["INIT-CHECK"], env);
    assert.equal(run.code, 0, run.stderr);
    const [context] = hookAnswers(run, "UserPromptSubmit");
    assert.match(
      context.hookSpecificOutput?.additionalContext ?? "",
      /loopwright: repository repo; no open work/,
    );
    const request = server.requests.find((entry) => entry.conversation === "init-check");
    assert.match(JSON.stringify(request?.body), /loopwright: repository repo; no open work/);
    assert.ok(existsSync(join(sandbox.repo, "user-stop-ran")), "the user's own Stop hook still runs");
    await execFileAsync("rm", [join(sandbox.repo, "user-stop-ran")]);

    const removed = await sandbox.cli(["init", "claude", "--remove"]);
    assert.equal(removed.code, 0, removed.stderr);
    assert.deepEqual(snapshot(sandbox.repo), original);
  });

  test("--remove after the user edited the files takes out only loopwright's part", async () => {
    const sandbox = await userCheckout();
    assert.equal((await sandbox.cli(["init", "claude"])).code, 0);
    const read = (path: string) => readFileSync(join(sandbox.repo, path), "utf8");
    await writeFile(join(sandbox.repo, "CLAUDE.md"), `${read("CLAUDE.md")}\n## Later\nDeploy on Fridays.\n`);
    const settings = JSON.parse(read(".claude/settings.json"));
    await writeFile(
      join(sandbox.repo, ".claude/settings.json"),
      JSON.stringify({ ...settings, model: "opus" }),
    );
    await writeFile(
      join(sandbox.repo, "LESSONS.md"),
      `${read("LESSONS.md")}- Run node --test before you stop.\n`,
    );

    const removed = await sandbox.cli(["init", "claude", "--remove"]);
    assert.equal(removed.code, 0, removed.stderr);
    assert.match(removed.stdout, /kept LESSONS\.md/);
    assert.equal(read("CLAUDE.md"), `${userInstructions}\n## Later\nDeploy on Fridays.\n`);
    const remaining = JSON.parse(read(".claude/settings.json"));
    assert.equal(remaining.model, "opus");
    assert.deepEqual(remaining.hooks, JSON.parse(userSettings).hooks);
    assert.match(read("LESSONS.md"), /Run node --test before you stop/);
    assert.equal(existsSync(join(sandbox.repo, ".claude/agents")), false);
    assert.equal(existsSync(join(sandbox.repo, ".loopwright")), false);
    assert.doesNotMatch(read(".git/info/exclude"), /loopwright/);
  });

  test("refuses without loop.yaml, and never clobbers a reviewer agent of the user's", async () => {
    const bare = await createSandbox({ "index.js": "1;\n" });
    sandboxes.push(bare);
    const missing = await bare.cli(["init", "claude"]);
    assert.equal(missing.code, 2);
    assert.match(missing.stderr, /no loop\.yaml at .*: run `loopwright init` there first/);

    const sandbox = await userCheckout({ ".claude/agents/loopwright-reviewer.md": "my own reviewer\n" });
    const before = snapshot(sandbox.repo);
    const refused = await sandbox.cli(["init", "claude"]);
    assert.equal(refused.code, 2);
    assert.match(refused.stderr, /loopwright-reviewer\.md exists and is not loopwright's/);
    assert.deepEqual(snapshot(sandbox.repo), before);
  });

  test("a launcher whose Node.js is gone still answers in JSON and exits 0", async () => {
    const sandbox = await userCheckout();
    assert.equal((await sandbox.cli(["init", "claude"])).code, 0);
    const launcher = join(sandbox.repo, ".loopwright", "hook");
    await writeFile(
      launcher,
      readFileSync(launcher, "utf8").replace(/^node='.*'$/m, "node='/nonexistent/node'"),
    );
    const { stdout } = await execFileAsync(launcher, ["stop"], { env: sandbox.env });
    assert.match(
      JSON.parse(stdout).systemMessage,
      /the Node\.js .* that hook mode was set up with is gone, so nothing was checked/,
    );
  });
});

describe("plain init still works", () => {
  test("init <directory> writes loop.yaml, also for a folder named claude; --remove alone is refused", async () => {
    const sandbox = await createSandbox({ "package.json": '{ "scripts": { "test": "node --test" } }\n' });
    sandboxes.push(sandbox);
    const plain = await sandbox.cli(["init"]);
    assert.equal(plain.code, 0, plain.stderr);
    assert.match(readFileSync(join(sandbox.repo, "loop.yaml"), "utf8"), /npm test/);

    await mkdir(join(sandbox.repo, "claude"));
    const folder = await sandbox.cli(["init", "./claude"]);
    assert.equal(folder.code, 0, folder.stderr);
    assert.ok(existsSync(join(sandbox.repo, "claude", "loop.yaml")));

    const stray = await sandbox.cli(["init", ".", "--remove"]);
    assert.equal(stray.code, 2);
    assert.match(stray.stderr, /--remove and --plugin go with `init claude`/);
  });

  test("the hook command answers through the CLI as well", async () => {
    const sandbox = await userCheckout();
    const run = await runHookProcess("prompt", sandbox.repo, {}, sandbox.env);
    assert.equal(run.code, 0);
    assert.match(run.output?.hookSpecificOutput?.additionalContext ?? "", /no open work/);
  });
});
