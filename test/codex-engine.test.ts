import assert from "node:assert/strict";
import { readdirSync } from "node:fs";
import { mkdtemp, readFile, realpath, rm, stat, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { delimiter, join } from "node:path";
import { after, before, describe, test } from "node:test";
import { codexDefinition, createCodexEngine } from "../src/engines/codex/codex-engine.ts";
import type { ScriptInput } from "../src/mock-model/script.ts";
import { startMockModel } from "../src/mock-model/server.ts";
import { findExecutable } from "../src/process/find-executable.ts";
import { agentCliEnvironment } from "./support/agent-cli-env.ts";
import { type EngineLoops, startEngineLoops } from "./support/engine-loops.ts";
import { addApproval, addProject, patchAdd } from "./support/failing-projects.ts";
import { createSandbox, type Sandbox } from "./support/loop-sandbox.ts";
import { survivors } from "./support/surviving-processes.ts";

/**
 * Real loops with the real `codex` CLI as the maker, driven by the mock-model server (the only fake):
 * codex reads and patches the code with its own tools, the gates run, a verifier on another engine
 * (Claude Code) rules through its own real CLI. Each loop's maker conversation is picked by its
 * brief's first line ("# Loop <name>: iteration N").
 */

/** The child the hanging maker leaves running; a number of its own, to find it among all processes. */
const hangSeconds = 3000 + Math.floor(Math.random() * 1000);

const script: ScriptInput = {
  models: ["gpt-5.5"],
  conversations: [
    {
      name: "fix-add",
      when: { contains: "# Loop fix-add: iteration 1" },
      turns: [
        { text: "Reading the code first.", tools: [{ name: "exec_command", input: { cmd: "cat add.js" } }] },
        { tools: [{ name: "apply_patch", input: patchAdd("a - b", "a + b") }] },
        { text: "Fixed add: it subtracted instead of adding.", usage: { input: 3000, output: 200 } },
      ],
    },
    {
      name: "two-tries-1",
      when: { contains: "# Loop two-tries: iteration 1" },
      turns: [
        { tools: [{ name: "apply_patch", input: patchAdd("a - b", "a * b") }] },
        { text: "Guessed that add should multiply." },
      ],
    },
    {
      name: "two-tries-2",
      when: { contains: "# Loop two-tries: iteration 2" },
      turns: [
        { tools: [{ name: "apply_patch", input: patchAdd("a * b", "a + b") }] },
        { text: "The test wants a sum: add now adds." },
      ],
    },
    {
      name: "hangs",
      when: { contains: "# Loop hangs: iteration" },
      turns: [
        // A child that outlives its command: codex keeps it running in its own session.
        { tools: [{ name: "exec_command", input: { cmd: `sleep ${hangSeconds}`, yield_time_ms: 250 } }] },
        { hang: true },
      ],
    },
    {
      name: "flaky-api",
      when: { contains: "# Loop flaky-api: iteration" },
      turns: [{ error: { status: 500, message: "upstream exploded" } }],
    },
    {
      name: "pricey",
      when: { contains: "# Loop pricey: iteration" },
      turns: [
        { tools: [{ name: "apply_patch", input: patchAdd("a - b", "a + b") }] },
        // 2.5M fresh input and 100k output tokens of gpt-5.5: $12.50 + $3 in the shipped price table.
        { text: "Fixed, expensively.", usage: { input: 2_500_000, output: 100_000 } },
      ],
    },
    {
      name: "verifier",
      when: { contains: "independent verifier of a coding loop" },
      turns: [{ json: addApproval }],
    },
  ],
};

let loops: EngineLoops;
let sandbox: Sandbox;

before(async () => {
  loops = await startEngineLoops(script);
  sandbox = await createSandbox(addProject);
  // Under `node --test` this variable would make the gate's own `node --test` skip every file and pass.
  delete sandbox.env.NODE_TEST_CONTEXT;
});
after(async () => {
  await loops?.close();
  await sandbox?.cleanup();
});

function spec(name: string, budget: string) {
  return `name: ${name}
goal: |
  add(a, b) returns the sum of a and b; the tests in add.test.js pass.
repo: ./repo
maker: { engine: codex, model: gpt-5.5 }
verifier: { engine: claude-code }
gates:
  - { id: tests, kind: tests-pass, run: "node --test add.test.js", timeout: 30s }
budget: ${budget}
`;
}

const runLoop = (name: string, budget: string) =>
  loops.run(sandbox, name, spec(name, budget), { json: true, timeoutMs: 90_000 });

/** The model requests of one conversation of the script. */
const requestsOf = (conversation: string) => loops.requestsOf(conversation);

describe("codex as the maker", () => {
  test("fixes a failing test with its own tools; gates pass; the verifier approves: verified", async () => {
    const codexHome = loops.env.CODEX_HOME;
    const configBefore = await readFile(join(codexHome, "config.toml"), "utf8");
    const { run, events, summary, output } = await runLoop("fix-add", "{ maxIterations: 2 }");
    assert.equal(run.code, 0, output);
    assert.equal(summary.stopReason, "verified");
    assert.equal(await sandbox.git("show", "loop/fix-add:add.js"), "exports.add = (a, b) => a + b;");
    assert.equal(await readFile(join(sandbox.repo, "add.js"), "utf8"), addProject["add.js"]);

    // Codex ran its tools for real: the model got the file's content and the patch's success back.
    const requests = requestsOf("fix-add");
    assert.equal(requests.length, 3);
    assert.match(JSON.stringify(requests[1].body), /exports\.add = \(a, b\) => a - b;/);
    assert.match(JSON.stringify(requests[2].body), /custom_tool_call_output/);

    // The verdict came from Claude Code, over the Anthropic protocol.
    const verifierEnded = events.find((event) => event.type === "verifier_ended");
    assert.equal(verifierEnded?.data.status, "ruled");
    assert.ok(requestsOf("verifier").some((request) => request.protocol === "anthropic"));

    // The account is codex's final message; the tokens are priced (codex reports no dollars).
    const makerEnded = events.find((event) => event.type === "maker_ended");
    assert.equal(makerEnded?.data.status, "completed");
    assert.equal(makerEnded?.data.account, "Fixed add: it subtracted instead of adding.");
    assert.ok(typeof makerEnded?.data.costUsd === "number" && makerEnded.data.costUsd > 0);
    assert.ok(summary.costUsd >= Number(makerEnded?.data.costUsd), "the loop's cost counts the maker's");

    // The user's codex configuration is read, never written; --ephemeral keeps sessions out of it.
    assert.equal(await readFile(join(codexHome, "config.toml"), "utf8"), configBefore);
    assert.equal(
      await stat(join(codexHome, "sessions")).catch(() => undefined),
      undefined,
      "no session files in CODEX_HOME",
    );
  });

  test("a wrong first attempt fails the gates; the next brief carries the failure; the second attempt fixes it", async () => {
    const { run, summary, output } = await runLoop("two-tries", "{ maxIterations: 3 }");
    assert.equal(run.code, 0, output);
    assert.deepEqual(
      summary.iterations.map((iteration: { outcome: string }) => iteration.outcome),
      ["failed", "verified"],
    );
    const [second] = requestsOf("two-tries-2");
    const prompt = JSON.stringify(second.body);
    assert.match(prompt, /Gate tests failed/);
    assert.match(prompt, /6 !== 5/, "the failing assertion's output reaches the second brief");
    assert.match(prompt, /Guessed that add should multiply/, "and the first approach");
    assert.equal(await sandbox.git("show", "loop/two-tries:add.js"), "exports.add = (a, b) => a + b;");
  });

  test("a model that hangs: the wall clock kills codex and every process it started", async () => {
    const { run, events, output } = await runLoop("hangs", "{ maxIterations: 1, wallClockPerIteration: 4s }");
    assert.equal(run.code, 3, output);
    assert.equal(events.find((event) => event.type === "maker_ended")?.data.status, "timeout");
    assert.equal(requestsOf("hangs").length, 2, "the second request is the one that hangs");
    // The hanging maker's `sleep` counts too, in case codex cleaned its children's environment.
    assert.deepEqual(
      survivors(sandbox.home, (commandLine) => commandLine === `sleep ${hangSeconds}`),
      [],
      "no process of the loop survives it",
    );
  });

  test("a model answering 500 each time: infrastructure errors, circuit broken after three", async () => {
    const { run, events, summary, output } = await runLoop("flaky-api", "{ maxIterations: 5 }");
    assert.equal(run.code, 5, output);
    assert.equal(summary.stopReason, "circuit_broken");
    const crashes = events.filter((event) => event.type === "maker_ended");
    assert.equal(crashes.length, 3);
    for (const crash of crashes) {
      assert.equal(crash.data.status, "crashed");
      assert.match(String(crash.data.error), /^[^\n]+$/);
    }
  });

  test("usage that crosses the per-iteration cap ends the loop budget_exhausted at the end of the turn", async () => {
    const { run, events, summary, output } = await runLoop(
      "pricey",
      "{ maxIterations: 3, maxCostUsdPerIteration: 1 }",
    );
    assert.equal(run.code, 3, output);
    assert.equal(summary.stopReason, "budget_exhausted");
    const makerEnded = events.find((event) => event.type === "maker_ended");
    assert.equal(makerEnded?.data.status, "over_budget");
    assert.ok(Number(makerEnded?.data.costUsd) > 4, `cost ${makerEnded?.data.costUsd}`);
    assert.equal(summary.iterations.length, 1);
    assert.equal(summary.iterations[0].outcome, "over_budget");
    assert.equal(events.filter((event) => event.type === "verifier_started").length, 0);
    // Codex could only be stopped when its turn ended: its work is kept, committed on the loop's branch.
    assert.equal(await sandbox.git("show", "loop/pricey:add.js"), "exports.add = (a, b) => a + b;");
  });
});

describe("choosing and finding codex", () => {
  test("auto verifies a codex maker with another provider's engine; without codex, one line names its package", async () => {
    const path = await sandbox.spec(
      spec("choose", "{ maxIterations: 1 }").replace(
        "verifier: { engine: claude-code }",
        "verifier: { engine: auto }",
      ),
      join(sandbox.root, "choose.yaml"),
    );
    const valid = await sandbox.cli(["validate", path], { env: loops.env });
    assert.equal(valid.code, 0, valid.stderr);
    assert.match(valid.stdout, /maker: codex gpt-5\.5 \(openai\); verifier: claude-code \(anthropic\)/);

    const withoutCodex = (sandbox.env.PATH ?? "")
      .split(delimiter)
      .filter((folder) => !findExecutable("codex", { PATH: folder }))
      .join(delimiter);
    const missing = await sandbox.cli(["run", path], { env: { ...loops.env, PATH: withoutCodex } });
    assert.equal(missing.code, 2);
    assert.match(
      missing.stderr,
      /^\S*choose\.yaml: maker\.engine: codex needs the `codex` CLI on PATH: npm install -g @openai\/codex$/m,
    );
  });

  test("names the credentials it would use, never their values; OpenAI unless told to run a local model", async () => {
    const home = await mkdtemp(join(tmpdir(), "loopwright-codex-home-"));
    try {
      assert.deepEqual(codexDefinition.credentials({ CODEX_HOME: home }), []);
      await writeFile(join(home, "auth.json"), "{}");
      assert.deepEqual(codexDefinition.credentials({ CODEX_HOME: home, OPENAI_API_KEY: "sk-secret" }), [
        "OPENAI_API_KEY",
        "codex login (auth.json)",
      ]);
    } finally {
      await rm(home, { recursive: true, force: true });
    }
    assert.equal(codexDefinition.provider({ engine: "codex" }), "openai");
    assert.equal(codexDefinition.provider({ engine: "codex", args: ["--oss"] }), "local");
  });
});

describe("codex in a read-only role", () => {
  test("cannot write the worktree, and answers the schema as output the loop can parse", async () => {
    const cwd = await realpath(await mkdtemp(join(tmpdir(), "loopwright-codex-verifier-")));
    const server = await startMockModel({
      script: {
        models: ["gpt-5.5"],
        turns: [
          {
            tools: [
              { name: "exec_command", input: { cmd: "echo sneaky > by-shell.txt; echo done" } },
              {
                name: "apply_patch",
                input: "*** Begin Patch\n*** Add File: {{cwd}}/by-patch.txt\n+x\n*** End Patch\n",
              },
            ],
          },
          { json: { approach: "Sum instead of difference.", hypotheses: null } },
        ],
      },
    });
    const env = await agentCliEnvironment(server.url, ["codex"]);
    try {
      await writeFile(join(cwd, "add.js"), addProject["add.js"]);
      const result = await createCodexEngine({ engine: "codex", model: "gpt-5.5" }).runTurn({
        role: "replanner",
        cwd,
        prompt: "You are the replanner of a coding loop. Suggest a new approach.",
        readOnly: true,
        outputSchema: {
          type: "object",
          properties: {
            approach: { type: "string", minLength: 1 },
            hypotheses: { type: "array", items: { type: "string" }, default: [] },
          },
          required: ["approach"],
        },
        context: {},
        turnNumber: 1,
        wallClockMs: 60_000,
        maxCostUsd: 0,
        turnDirectory: join(cwd, ".turn"),
        runId: "codex-read-only-test",
        stepId: "replan-1",
        env: { ...process.env, ...env } as Record<string, string>,
        signal: new AbortController().signal,
      });
      assert.equal(result.status, "completed", result.error);
      assert.deepEqual(JSON.parse(result.output ?? ""), { approach: "Sum instead of difference." });
      assert.deepEqual(
        readdirSync(cwd).sort(),
        [".turn", "add.js"],
        "neither the shell nor apply_patch wrote",
      );
      const toolOutputs = JSON.stringify(server.requests.at(-1)?.body);
      assert.match(toolOutputs, /Read-only file system/);
      const lastBody = server.requests.at(-1)?.body as {
        text: { format: { strict: boolean; schema: unknown } };
      };
      const schemaSent = lastBody.text.format;
      assert.equal(schemaSent.strict, true);
      assert.deepEqual(schemaSent.schema, {
        type: "object",
        properties: {
          approach: { type: "string" },
          hypotheses: { anyOf: [{ type: "array", items: { type: "string" } }, { type: "null" }] },
        },
        required: ["approach", "hypotheses"],
        additionalProperties: false,
      });
    } finally {
      await server.close();
      await rm(cwd, { recursive: true, force: true });
      await rm(env.HOME, { recursive: true, force: true });
    }
  });
});
