/**
 * (i) A loop whose maker is Claude Code, in a repository with hook mode installed (project hooks
 * committed, and user-level hooks pointing at the checkout's launcher, as a plugin's would), never
 * triggers these hooks: the maker's session neither sees status lines nor is held back, and no hook
 * state appears anywhere. Controls show the same hooks are live for a plain `claude` in the maker's
 * worktree, and that the hooks step aside by themselves inside an engine session.
 */
import assert from "node:assert/strict";
import { existsSync, readdirSync, statSync } from "node:fs";
import { chmod, mkdir, writeFile } from "node:fs/promises";
import { delimiter, join } from "node:path";
import { after, before, test } from "node:test";
import type { LoggedRequest } from "../src/mock-model/request-log.ts";
import { type MockModel, startMockModel } from "../src/mock-model/server.ts";
import { agentCliEnvironment } from "./support/agent-cli-env.ts";
import { hookAnswers, runClaudeSession } from "./support/claude-session.ts";
import { createSandbox, type Sandbox } from "./support/loop-sandbox.ts";

const binaries = new URL("../node_modules/.bin", import.meta.url).pathname;
const wrong = "export function add(a, b) {\n  return a - b;\n}\n";
const approval = {
  overall: "pass",
  gates: [{ id: "tests", passed: true, reason: "add() adds", evidence: [{ file: "math.js", line: 2 }] }],
};
const project = {
  "package.json": '{ "type": "module" }\n',
  "math.js": wrong,
  "test/math.test.js":
    'import assert from "node:assert/strict";\nimport { test } from "node:test";\nimport { add } from "../math.js";\n\ntest("add", () => assert.equal(add(2, 3), 5));\n',
  "verify.sh": `#!/bin/sh\ncat > /dev/null\necho '${JSON.stringify(approval)}'\n`,
  "loop.yaml": `name: hooked-loop
goal: add() in math.js adds its arguments.
repo: .
maker: { engine: claude-code }
verifier: { engine: command, run: ./verify.sh }
gates:
  - { id: tests, kind: tests-pass, run: "node --test" }
budget: { maxIterations: 1 }
`,
};

let server: MockModel;
let sandbox: Sandbox;
let env: NodeJS.ProcessEnv;

before(async () => {
  server = await startMockModel({
    script: {
      conversations: [
        {
          name: "maker",
          when: { contains: "# Loop hooked-loop: iteration" },
          turns: [
            { tools: [{ name: "Read", input: { file_path: "{{cwd}}/math.js" } }] },
            {
              tools: [
                {
                  name: "Edit",
                  input: { file_path: "{{cwd}}/math.js", old_string: "a - b", new_string: "a + b" },
                },
              ],
            },
            { text: "add() adds now." },
          ],
        },
        {
          name: "control",
          when: { contains: "CONTROL-RUN" },
          turns: [
            { tools: [{ name: "Read", input: { file_path: "{{cwd}}/math.js" } }] },
            {
              tools: [
                { name: "Write", input: { file_path: "{{cwd}}/math.js", content: wrong.replace("-", "*") } },
              ],
            },
            { text: "Done." },
            { text: "Done again." },
          ],
        },
      ],
    },
  });
  sandbox = await createSandbox(project);
  delete sandbox.env.NODE_TEST_CONTEXT;
  await chmod(join(sandbox.repo, "verify.sh"), 0o755);
  const init = await sandbox.cli(["init", "claude"]);
  assert.equal(init.code, 0, init.stderr);
  await sandbox.git("add", "-A");
  await sandbox.git("commit", "-q", "-m", "hook mode");

  const cliEnv = await agentCliEnvironment(server.url, ["claude-code"]);
  // User-level hooks calling this checkout's launcher by absolute path, the way a plugin's hooks would:
  // they would act in any checkout with a loop.yaml, the maker's worktree included.
  const launcher = join(sandbox.repo, ".loopwright", "hook");
  const userHook = (event: string) => [{ hooks: [{ type: "command", command: `${launcher} ${event}` }] }];
  await mkdir(join(cliEnv.HOME, ".claude"), { recursive: true });
  await writeFile(
    join(cliEnv.HOME, ".claude", "settings.json"),
    JSON.stringify({
      hooks: {
        Stop: userHook("stop"),
        UserPromptSubmit: userHook("prompt"),
        PostToolUse: userHook("post-tool"),
      },
    }),
  );
  env = { ...cliEnv, PATH: `${binaries}${delimiter}${process.env.PATH}` };
});
after(async () => {
  await server.close();
  await sandbox.cleanup();
});

const requestsOf = (name: string) => server.requests.filter((request) => request.conversation === name);
const bodyOf = (request: LoggedRequest) => JSON.stringify(request.body);

/** Every folder named `.loopwright` under `root`. */
function stateFolders(root: string): string[] {
  const found: string[] = [];
  const walk = (folder: string) => {
    for (const entry of readdirSync(folder)) {
      const path = join(folder, entry);
      if (!statSync(path, { throwIfNoEntry: false })?.isDirectory() || entry === ".git") continue;
      if (entry === ".loopwright") found.push(path);
      else walk(path);
    }
  };
  walk(root);
  return found;
}

test("(i) a loop with a Claude Code maker does not trigger hook mode's hooks", async () => {
  const run = await sandbox.cli(["run", "loop.yaml"], { env });
  assert.equal(run.code, 0, run.stdout + run.stderr);
  assert.match(run.stdout, /stopped: verified/);
  const maker = requestsOf("maker");
  assert.deepEqual(
    maker.map((request) => request.outcome),
    ["answered", "answered", "answered"],
  );
  for (const request of maker) {
    assert.doesNotMatch(bodyOf(request), /loopwright: repository/, "no status line reached the maker");
    assert.doesNotMatch(bodyOf(request), /Stop hook feedback/, "the maker was never held back");
  }
  assert.deepEqual(stateFolders(sandbox.home), [], "no hook state in the loop's worktrees");
  assert.equal(
    existsSync(join(sandbox.repo, ".loopwright", "state.json")),
    false,
    "no hook ran in the checkout",
  );

  // Control: a plain claude in a worktree of the loop's branch does run the hooks (they are live there).
  const worktree = join(sandbox.root, "control");
  await sandbox.git("worktree", "add", "-q", worktree, "loop/hooked-loop");
  // (Its project hooks fail there: the launcher is not in a fresh worktree; the user-level ones answer.)
  const control = await runClaudeSession(worktree, ["CONTROL-RUN"], { ...sandbox.env, ...env });
  assert.equal(control.code, 0, control.stderr);
  const contexts = hookAnswers(control, "UserPromptSubmit").map(
    (answer) => answer.hookSpecificOutput?.additionalContext,
  );
  assert.ok(contexts.some((context) => /repository control; no open work/.test(context ?? "")));
  const stops = hookAnswers(control, "Stop").map((answer) => answer.decision);
  assert.ok(stops.includes("block"), "the failing gate blocks a user's session there");
});

test("inside an engine session the hooks step aside by themselves, even when Claude Code runs them", async () => {
  const control = await runClaudeSession(sandbox.repo, ["CONTROL-RUN"], {
    ...sandbox.env,
    ...env,
    LOOPWRIGHT_ENGINE_SESSION: "1",
  });
  assert.equal(control.code, 0, control.stderr);
  const answers = [...hookAnswers(control, "UserPromptSubmit"), ...hookAnswers(control, "Stop")];
  assert.ok(answers.length >= 2, "Claude Code ran the hooks");
  for (const answer of answers) assert.deepEqual(answer, {});
});
