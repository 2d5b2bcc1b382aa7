/**
 * The claude-code engine end to end: the real `claude` CLI, driven by the mock-model server, as the
 * maker of real loops run by the real `loopwright` binary (with a real `codex` verifier), plus one
 * read-only verifier turn through the engine itself. One mock server serves every conversation; each
 * loop has its own name, which is the marker its maker's brief opens with.
 */
import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import { existsSync } from "node:fs";
import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { promisify } from "node:util";
import { createClaudeCodeEngine } from "../src/engines/claude-code/claude-code-engine.ts";
import type { ConversationInput } from "./support/agent-harness.ts";
import { type EngineLoops, startEngineLoops } from "./support/engine-loops.ts";
import { fixedMath, mathApproval, mathProject } from "./support/failing-projects.ts";
import { createSandbox, type Sandbox } from "./support/loop-sandbox.ts";
import { createProbeFolders, probeRequest } from "./support/read-only-probe.ts";
import { survivors } from "./support/surviving-processes.ts";

const execFileAsync = promisify(execFile);
const multiplied = fixedMath.replace("+", "*");

/** The maker's conversation of loop `name` (at `iteration`, when given). */
const maker = (name: string, turns: ConversationInput["turns"], iteration?: number): ConversationInput => ({
  name: iteration ? `${name}-${iteration}` : name,
  when: { contains: `# Loop ${name}: iteration ${iteration ?? ""}` },
  turns,
});

const conversations: ConversationInput[] = [
  maker("cc-fix", [
    { text: "Looking at math.js.", tools: [{ name: "Read", input: { file_path: "{{cwd}}/math.js" } }] },
    {
      tools: [
        { name: "Edit", input: { file_path: "{{cwd}}/math.js", old_string: "a - b", new_string: "a + b" } },
      ],
    },
    { tools: [{ name: "Bash", input: { command: "node --test" } }] },
    { text: "Fixed add(): it subtracted. node --test passes." },
  ]),
  maker(
    "cc-retry",
    [
      { tools: [{ name: "Read", input: { file_path: "{{cwd}}/math.js" } }] },
      { tools: [{ name: "Write", input: { file_path: "{{cwd}}/math.js", content: multiplied } }] },
      { text: "add() now multiplies." },
    ],
    1,
  ),
  maker(
    "cc-retry",
    [
      { tools: [{ name: "Read", input: { file_path: "{{cwd}}/math.js" } }] },
      { tools: [{ name: "Write", input: { file_path: "{{cwd}}/math.js", content: fixedMath } }] },
      { text: "add() now adds." },
    ],
    2,
  ),
  maker("cc-hang", [
    { tools: [{ name: "Bash", input: { command: "(sleep 600 &) ; echo started" } }] },
    { hang: true },
  ]),
  maker("cc-outage", [{ error: { status: 500, message: "scripted outage" } }]),
  maker("cc-cost", [
    {
      tools: [{ name: "Write", input: { file_path: "{{cwd}}/spent.txt", content: "expensive\n" } }],
      usage: { input: 1000, output: 2_000_000 },
    },
    { text: "This turn must never be requested." },
  ]),
  {
    name: "read-only",
    when: { contains: "READ-ONLY PROBE" },
    turns: [
      {
        tools: [
          { name: "Read", input: { file_path: "{{cwd}}/../logs/tests.log" } },
          { name: "Read", input: { file_path: "{{cwd}}/../turn/maker-transcript.jsonl" } },
          { name: "Write", input: { file_path: "{{cwd}}/written.txt", content: "no\n" } },
          { name: "Bash", input: { command: "touch bashed.txt" } },
        ],
      },
      { json: mathApproval },
    ],
  },
  { name: "hooks-control", when: { contains: "HOOKS CONTROL" }, turns: [{ text: "ok" }] },
  {
    name: "verifier",
    when: { contains: "independent verifier of a coding loop" },
    turns: [{ json: mathApproval }],
  },
];

let loops: EngineLoops;
before(async () => {
  loops = await startEngineLoops({ conversations });
});
after(() => loops.close());

const requestsOf = (conversation: string) => loops.requestsOf(conversation);

const spec = (name: string, budget = "maxIterations: 2") => `name: ${name}
goal: |
  add() in math.js adds its arguments; the tests pass.
repo: ./repo
maker: { engine: claude-code, model: claude-sonnet-4-6 }
verifier: { engine: codex }
gates:
  - { id: tests, kind: tests-pass, run: "node --test" }
budget: { ${budget} }
`;

const loop = (sandbox: Sandbox, name: string, budget?: string) =>
  loops.run(sandbox, name, spec(name, budget));

describe("claude-code engine, real loops", () => {
  it("fixes a failing test with its real tools, a codex verifier approves, and the repository's hooks never run", async () => {
    const sandbox = await createSandbox(mathProject);
    try {
      const markers = {
        stop: join(sandbox.root, "stop-hook-ran"),
        prompt: join(sandbox.root, "prompt-hook-ran"),
      };
      const hook = (file: string) => [{ hooks: [{ type: "command", command: `touch ${file}` }] }];
      await sandbox.commit({
        ".claude/settings.json": JSON.stringify({
          hooks: { Stop: hook(markers.stop), UserPromptSubmit: hook(markers.prompt) },
        }),
      });
      const { run, summary } = await loop(sandbox, "cc-fix");
      assert.equal(run.code, 0, run.stdout + run.stderr);
      assert.match(run.stdout, /stopped: verified/);
      assert.equal(await sandbox.git("show", "loop/cc-fix:math.js"), fixedMath.trim());
      assert.deepEqual(
        requestsOf("cc-fix").map((request) => [request.turn, request.outcome]),
        [
          [0, "answered"],
          [1, "answered"],
          [2, "answered"],
          [3, "answered"],
        ],
      );
      // The Bash call really ran the tests in the worktree, and the model saw them pass.
      assert.match(JSON.stringify(requestsOf("cc-fix")[3].body), /pass 1/);
      assert.ok(requestsOf("verifier").some((request) => request.protocol === "responses"));
      assert.ok(summary.iterations[0].costUsd > 0, "the maker's cost is recorded");
      assert.equal(existsSync(markers.stop) || existsSync(markers.prompt), false, "a hook ran in the maker");

      // Control: the same hooks do fire for a plain `claude -p` in that repository.
      await execFileAsync("claude", ["-p", "HOOKS CONTROL", "--no-session-persistence"], {
        cwd: sandbox.repo,
        env: { ...process.env, ...loops.env },
      });
      assert.ok(existsSync(markers.stop) && existsSync(markers.prompt), "the fixture's hooks are live");
    } finally {
      await sandbox.cleanup();
    }
  });

  it("gets it wrong first; the next brief carries the failing gate; the second attempt is verified", async () => {
    const sandbox = await createSandbox(mathProject);
    try {
      const { run, summary } = await loop(sandbox, "cc-retry");
      assert.equal(run.code, 0, run.stdout + run.stderr);
      assert.deepEqual(
        summary.iterations.map((iteration: { outcome: string }) => iteration.outcome),
        ["failed", "verified"],
      );
      const second = JSON.stringify(requestsOf("cc-retry-2")[0]?.body);
      assert.match(second, /Gate tests failed/);
      assert.match(second, /6 !== 5/, "the failure's output tail reaches the model");
      assert.match(second, /add\(\) now multiplies/, "the first approach is in the brief");
      assert.equal(await sandbox.git("show", "loop/cc-retry:math.js"), fixedMath.trim());
    } finally {
      await sandbox.cleanup();
    }
  });

  it("kills the CLI and everything it started when the model hangs past the wall clock", async () => {
    const sandbox = await createSandbox(mathProject);
    try {
      // The wall clock leaves the CLI time to start and run its Bash call on a loaded machine (at 6 s a
      // 2-core machine at load 10 ran out before the second request).
      const { run } = await loop(sandbox, "cc-hang", "maxIterations: 1, wallClockPerIteration: 15s");
      assert.equal(run.code, 3, run.stdout + run.stderr);
      const [, hung] = requestsOf("cc-hang");
      assert.match(JSON.stringify(hung?.body), /started/, "the Bash child was running when the model hung");
      assert.equal(hung?.aborted, true, "the CLI went away while waiting for the model");
      assert.match(run.stdout, /maker timeout/);
      assert.deepEqual(survivors(sandbox.home), []);
    } finally {
      await sandbox.cleanup();
    }
  });

  it("ends circuit_broken after three API errors in a row", async () => {
    const sandbox = await createSandbox(mathProject);
    try {
      const { run, summary } = await loop(sandbox, "cc-outage", "maxIterations: 5");
      assert.equal(run.code, 5, run.stdout + run.stderr);
      assert.equal(summary.stopReason, "circuit_broken");
      assert.deepEqual(
        requestsOf("cc-outage").map((request) => request.outcome),
        ["error", "error", "error"],
      );
      assert.match(run.stdout, /500/);
    } finally {
      await sandbox.cleanup();
    }
  });

  it("stops a maker turn whose usage crosses maxCostUsdPerIteration and ends budget_exhausted", async () => {
    const sandbox = await createSandbox(mathProject);
    try {
      const { run, summary } = await loop(sandbox, "cc-cost", "maxIterations: 3, maxCostUsdPerIteration: 1");
      assert.equal(run.code, 3, run.stdout + run.stderr);
      assert.equal(summary.stopReason, "budget_exhausted");
      assert.deepEqual(
        requestsOf("cc-cost").map((request) => request.turn),
        [0],
        "the turn was stopped before its next model request",
      );
      assert.equal(summary.iterations.length, 1);
      assert.equal(summary.iterations[0].outcome, "over_budget");
      assert.ok(summary.iterations[0].costUsd > 1, `cost recorded: ${summary.iterations[0].costUsd}`);
    } finally {
      await sandbox.cleanup();
    }
  });
});

describe("claude-code engine, a read-only turn", () => {
  it("answers through StructuredOutput, reads the gate logs beside the worktree, cannot write, cannot read the maker's transcript", async () => {
    const probe = await createProbeFolders("loopwright-claude-readonly-");
    try {
      const { cwd } = probe;
      const result = await createClaudeCodeEngine({
        engine: "claude-code",
        model: "claude-sonnet-4-6",
      }).runTurn(probeRequest(probe, { env: loops.env }));
      assert.equal(result.status, "completed", result.error);
      assert.deepEqual(JSON.parse(result.output ?? ""), mathApproval);
      const answered = JSON.stringify(requestsOf("read-only")[1]?.body);
      assert.match(answered, /the gate log line/, "the gate log outside the worktree was readable");
      assert.doesNotMatch(answered, /MAKER-TRANSCRIPT-SECRET/, "the maker's transcript stays unread");
      assert.equal(existsSync(join(cwd, "written.txt")), false);
      assert.equal(existsSync(join(cwd, "bashed.txt")), false);
      assert.ok((result.costUsd ?? 0) > 0);
      assert.match(await readFile(result.transcriptPath ?? "", "utf8"), /"type":"result"/);
    } finally {
      await probe.cleanup();
    }
  });
});
