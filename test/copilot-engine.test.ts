import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import { readdirSync } from "node:fs";
import { mkdir, mkdtemp, readFile, realpath, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { delimiter, join } from "node:path";
import { after, before, describe, test } from "node:test";
import { promisify } from "node:util";
import type { EngineEvent } from "../src/core/engine.ts";
import { copilotDefinition, createCopilotEngine } from "../src/engines/copilot/copilot-engine.ts";
import type { LoggedRequest } from "../src/mock-model/request-log.ts";
import type { ScriptInput } from "../src/mock-model/script.ts";
import { startMockModel } from "../src/mock-model/server.ts";
import { findExecutable } from "../src/process/find-executable.ts";
import { agentCliEnvironment } from "./support/agent-cli-env.ts";
import { type EngineLoops, startEngineLoops } from "./support/engine-loops.ts";
import { addApproval, addProject, patchAdd } from "./support/failing-projects.ts";
import { createSandbox, type Sandbox } from "./support/loop-sandbox.ts";
import { survivors } from "./support/surviving-processes.ts";

const execFileAsync = promisify(execFile);

/**
 * Real loops with the real `copilot` CLI as the maker, driven by the mock-model server (the only fake):
 * Copilot patches the code and runs commands with its own tools, the gates run, a verifier on another
 * engine (Claude Code) rules through its own real CLI. Each loop's maker conversation is picked by its
 * brief's first line ("# Loop <name>: iteration N"). Plus one read-only turn through the engine itself.
 */

const fixtureRepo = {
  ...addProject,
  // Hooks of the repository, for Copilot (.github/hooks) and in Claude Code's format, which Copilot
  // also runs in a folder it trusts: an unattended turn must run neither.
  ".github/hooks/record.json": JSON.stringify({
    version: 1,
    hooks: { sessionStart: [{ type: "command", bash: 'echo copilot >> "$LOOPWRIGHT_HOME/hook-ran.txt"' }] },
  }),
  ".claude/settings.json": JSON.stringify({
    hooks: {
      UserPromptSubmit: [
        { hooks: [{ type: "command", command: 'echo claude >> "$LOOPWRIGHT_HOME/hook-ran.txt"' }] },
      ],
    },
  }),
};

/** The child the hanging maker leaves running; a number of its own, to find it among all processes. */
const hangSeconds = 3000 + Math.floor(Math.random() * 1000);

const script: ScriptInput = {
  models: ["gpt-5.5"],
  conversations: [
    {
      name: "fix-add",
      when: { contains: "# Loop fix-add: iteration 1" },
      turns: [
        { text: "Reading the code first.", tools: [{ name: "view", input: { path: "{{cwd}}/add.js" } }] },
        { tools: [{ name: "apply_patch", input: patchAdd("a - b", "a + b") }] },
        {
          tools: [
            { name: "bash", input: { command: "node --test add.test.js", description: "run the tests" } },
          ],
        },
        // Usage far over the loop's $1 cap: Copilot reports none of it, so nothing can stop the turn.
        { text: "Fixed add: it subtracted instead of adding.", usage: { input: 2_500_000, output: 100_000 } },
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
        // A child that outlives its command: Copilot's shells run in sessions of their own.
        {
          tools: [
            {
              name: "bash",
              input: { command: `sleep ${hangSeconds} >/dev/null 2>&1 & echo started`, description: "start" },
            },
          ],
        },
        { hang: true },
      ],
    },
    {
      name: "flaky-api",
      when: { contains: "# Loop flaky-api: iteration" },
      // retryAfter 0 keeps Copilot's own five retries short (it honors Retry-After).
      turns: [{ error: { status: 500, message: "upstream exploded", retryAfter: 0 } }],
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
  // A user who approves everything by environment: the engine must still keep the repository's hooks off.
  loops.env.COPILOT_ALLOW_ALL = "true";
  sandbox = await createSandbox(fixtureRepo);
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
maker: { engine: copilot }
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

describe("copilot as the maker", () => {
  test("fixes a failing test with its own tools; gates pass; the verifier approves: verified", async () => {
    const settings = join(loops.env.HOME, ".copilot", "settings.json");
    await mkdir(join(loops.env.HOME, ".copilot"), { recursive: true });
    await writeFile(settings, '{ "model": "gpt-5.5" }\n');
    const { run, events, summary, output } = await runLoop(
      "fix-add",
      "{ maxIterations: 2, maxCostUsdPerIteration: 1 }",
    );
    assert.equal(run.code, 0, output);
    assert.equal(summary.stopReason, "verified");
    assert.equal(await sandbox.git("show", "loop/fix-add:add.js"), "exports.add = (a, b) => a + b;");
    assert.equal(await readFile(join(sandbox.repo, "add.js"), "utf8"), fixtureRepo["add.js"]);
    assert.equal(await sandbox.git("diff", "--name-only", "main", "loop/fix-add"), "add.js");

    // Copilot ran its tools for real: the model got the file, the patch's result and the test run back.
    const requests = requestsOf("fix-add");
    assert.equal(requests.length, 4);
    const outputs = toolOutputs(requests[3]);
    assert.equal(outputs.length, 3, JSON.stringify(outputs));
    assert.match(outputs[0], /exports\.add = \(a, b\) => a - b;/);
    assert.match(outputs[1], /add\.js/);
    assert.match(outputs[2], /pass 1\n[\s\S]*completed with exit code 0/);

    // The verdict came from Claude Code, over the Anthropic protocol.
    assert.equal(events.find((event) => event.type === "verifier_ended")?.data.status, "ruled");
    assert.ok(requestsOf("verifier").some((request) => request.protocol === "anthropic"));

    // The account is Copilot's final message. Copilot reports no cost: none is recorded (not $0), and
    // the $1 cap could not stop a turn whose tokens cost far more.
    const makerEnded = events.find((event) => event.type === "maker_ended");
    assert.equal(makerEnded?.data.status, "completed");
    assert.equal(makerEnded?.data.account, "Fixed add: it subtracted instead of adding.");
    assert.equal("costUsd" in (makerEnded?.data ?? {}), false);

    // Neither hook of the repository ran; the user's Copilot settings were read, never written.
    assert.deepEqual(
      readdirSync(sandbox.home).filter((entry) => entry === "hook-ran.txt"),
      [],
    );
    assert.equal(await readFile(settings, "utf8"), '{ "model": "gpt-5.5" }\n');
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

  test("a model that hangs: the wall clock kills copilot and every process it started", async () => {
    const { run, events, output } = await runLoop("hangs", "{ maxIterations: 1, wallClockPerIteration: 8s }");
    assert.equal(run.code, 3, output);
    assert.equal(events.find((event) => event.type === "maker_ended")?.data.status, "timeout");
    assert.equal(requestsOf("hangs").length, 2, "the second request is the one that hangs");
    assert.match(JSON.stringify(requestsOf("hangs")[1].body), /started/, "the shell's child was running");
    // The hanging maker's `sleep` counts too, in case copilot cleaned its children's environment.
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
      assert.match(String(crash.data.error), /^copilot: Failed to get response .*500 upstream exploded$/);
    }
  });
});

describe("choosing and finding copilot", () => {
  test("auto verifies a copilot maker on an OpenAI model with another provider's engine, and says the cap is not enforced; without copilot, one line names its package", async () => {
    const path = await sandbox.spec(
      spec("choose", "{ maxIterations: 1 }").replace(
        "verifier: { engine: claude-code }",
        "verifier: { engine: auto }",
      ),
      join(sandbox.root, "choose.yaml"),
    );
    const valid = await sandbox.cli(["validate", path], { env: loops.env });
    assert.equal(valid.code, 0, valid.stderr);
    assert.match(valid.stdout, /maker: copilot \(openai\); verifier: claude-code \(anthropic\)/);
    assert.match(valid.stdout, /warning: maker copilot reports no .*cost.*not enforced/);

    const withoutCopilot = loops.env.PATH.split(delimiter)
      .filter((folder) => !findExecutable("copilot", { PATH: folder }))
      .join(delimiter);
    const run = await sandbox.cli(["run", path], { env: { ...loops.env, PATH: withoutCopilot } });
    assert.equal(run.code, 2);
    assert.match(
      run.stderr,
      /^\S*choose\.yaml: maker\.engine: copilot needs the `copilot` CLI on PATH: npm install -g @github\/copilot$/m,
    );
  });

  test("the provider follows the model's name; without one Copilot picks it server-side: github", async () => {
    const provider = (spec: { model?: string; args?: string[] }, env: NodeJS.ProcessEnv = {}) =>
      copilotDefinition.provider({ engine: "copilot", ...spec }, env);
    assert.equal(provider({ model: "gpt-5.5" }), "openai");
    assert.equal(provider({ model: "claude-sonnet-4.6" }), "anthropic");
    assert.equal(provider({ model: "gemini-3.7-flash" }), "google");
    assert.equal(provider({ args: ["--model", "claude-opus-5"] }, { COPILOT_MODEL: "gpt-5.5" }), "anthropic");
    assert.equal(provider({}, { COPILOT_MODEL: "gpt-5.4-mini" }), "openai");
    assert.equal(provider({}, { HOME: "/nonexistent" }), "github");
    assert.equal(provider({ model: "auto" }), "github");
    assert.equal(provider({ model: "grok-4.7" }), "unknown");
    const local = { COPILOT_PROVIDER_BASE_URL: "http://localhost:11434/v1" };
    assert.equal(provider({ model: "deepseek-coder-v2:16b" }, local), "local");

    const home = await mkdtemp(join(tmpdir(), "loopwright-copilot-home-"));
    try {
      await writeFile(join(home, "settings.json"), '// mine\n{ "model": "claude-haiku-4.5" }\n');
      assert.equal(provider({}, { COPILOT_HOME: home }), "anthropic", "the user's settings are read");
      assert.deepEqual(copilotDefinition.credentials({ COPILOT_HOME: home, HOME: home }), []);
      await writeFile(join(home, "config.json"), '// managed\n{ "loggedInUsers": [] }\n');
      assert.deepEqual(
        copilotDefinition.credentials({ COPILOT_HOME: home, HOME: home, GH_TOKEN: "secret" }),
        ["GH_TOKEN", `copilot login (${join(home, "config.json")})`],
      );
    } finally {
      await rm(home, { recursive: true, force: true });
    }
  });
});

describe("copilot in a read-only role", () => {
  test("its writes (git --output included) are refused, its reads run, the maker's transcript beside the diff stays unread, and its fenced JSON is the output; tokens but no cost", async () => {
    // Outside the system temporary directory, which Copilot may always read: only --add-dir opens it.
    const base = await realpath(await mkdtemp(join(tmpdir(), "loopwright-copilot-verifier-")));
    const [cwd, evidence, temporary] = ["work", "evidence", "tmp"].map((name) => join(base, name));
    for (const folder of [cwd, evidence, temporary]) await mkdir(folder);
    const server = await startMockModel({
      script: {
        models: ["gpt-5.5"],
        turns: [
          {
            tools: [
              {
                name: "apply_patch",
                input: "*** Begin Patch\n*** Add File: {{cwd}}/by-patch.txt\n+x\n*** End Patch\n",
              },
            ],
          },
          {
            tools: [{ name: "bash", input: { command: "echo sneaky > by-shell.txt", description: "write" } }],
          },
          { tools: [{ name: "bash", input: { command: "touch touched.txt", description: "touch" } }] },
          {
            tools: [
              { name: "bash", input: { command: "git diff --output=by-diff.patch", description: "diff" } },
            ],
          },
          {
            tools: [
              { name: "bash", input: { command: "git log -p --outp=by-log.patch", description: "log" } },
            ],
          },
          { tools: [{ name: "bash", input: { command: "cat add.js", description: "read" } }] },
          { tools: [{ name: "view", input: { path: join(evidence, "tests.log") } }] },
          { tools: [{ name: "view", input: { path: join(base, "turn", "maker-transcript.jsonl") } }] },
          {
            text: `Checked.\n\n\`\`\`json\n${JSON.stringify(addApproval)}\n\`\`\``,
            usage: { input: 900, output: 40, cacheRead: 100 },
          },
        ],
      },
    });
    const env = await agentCliEnvironment(server.url, ["copilot"]);
    try {
      await writeFile(join(cwd, "add.js"), fixtureRepo["add.js"]);
      await writeFile(join(evidence, "tests.log"), "# pass 1\n");
      await mkdir(join(base, "turn"));
      await writeFile(join(base, "turn", "maker-transcript.jsonl"), '{"note":"MAKER-TRANSCRIPT-SECRET"}\n');
      await writeFile(join(base, "turn", "diff.patch"), "--- a/add.js\n+++ b/add.js\n");
      // A repository with a change, so that an allowed `git diff --output` would write its file.
      await execFileAsync("git", ["init", "-q"], { cwd });
      await execFileAsync("git", ["add", "add.js"], { cwd });
      await execFileAsync(
        "git",
        ["-c", "user.name=t", "-c", "user.email=t@example.com", "commit", "-qm", "base"],
        { cwd },
      );
      await writeFile(join(cwd, "add.js"), `${fixtureRepo["add.js"]}// changed\n`);
      const events: EngineEvent[] = [];
      const result = await createCopilotEngine({ engine: "copilot" }).runTurn({
        role: "verifier",
        cwd,
        prompt: "You are the independent verifier of a coding loop. Rule on the change.",
        readOnly: true,
        outputSchema: {},
        // The diff lies beside the maker's transcript, as in a loop's iteration folder.
        context: {
          gates: [{ id: "tests", logPath: join(evidence, "tests.log") }],
          diffPath: join(base, "turn", "diff.patch"),
        },
        turnNumber: 1,
        wallClockMs: 60_000,
        maxCostUsd: 0,
        turnDirectory: join(base, "turn"),
        runId: "copilot-read-only-test",
        stepId: "verifier-1",
        // A user who approves everything by environment: a read-only turn must stay read-only.
        env: { ...process.env, ...env, COPILOT_ALLOW_ALL: "true", TMPDIR: temporary } as Record<
          string,
          string
        >,
        signal: new AbortController().signal,
        onEvent: (event) => events.push(event),
      });
      assert.equal(result.status, "completed", result.error);
      assert.deepEqual(JSON.parse(result.output ?? ""), addApproval);
      assert.deepEqual(
        readdirSync(cwd).sort(),
        [".git", "add.js"],
        "neither apply_patch, the shell nor git --output wrote",
      );

      const outputs = toolOutputs(server.requests.at(-1));
      assert.equal(outputs.length, 8);
      for (const index of [0, 1, 2, 3, 4]) assert.match(outputs[index], /denied/, `tool call ${index}`);
      assert.match(outputs[5], /exports\.add = \(a, b\) => a - b;/);
      assert.match(outputs[6], /# pass 1/, "the evidence outside the worktree is readable");
      assert.doesNotMatch(outputs[7], /MAKER-TRANSCRIPT-SECRET/, "the maker's transcript stays unread");

      // Tokens from the CLI's usage report (input includes the cached part); dollars stay unknown.
      assert.equal(result.usage?.cachedInputTokens, 100);
      assert.ok((result.usage?.inputTokens ?? 0) > 1000, JSON.stringify(result.usage));
      assert.equal(result.costUsd, undefined);
      assert.deepEqual(
        events.filter((event) => event.type === "usage"),
        [{ type: "usage", usage: result.usage, premiumRequests: 0 }],
      );
    } finally {
      await server.close();
      await rm(base, { recursive: true, force: true });
      await rm(env.HOME, { recursive: true, force: true });
    }
  });
});

/** What the tools returned to the model, in order, as the request carries it (OpenAI Responses). */
function toolOutputs(request: LoggedRequest | undefined): string[] {
  const body = request?.body as { input?: { type: string; output?: unknown }[] } | undefined;
  return (body?.input ?? [])
    .filter((item) => item.type.endsWith("_call_output"))
    .map((item) => (typeof item.output === "string" ? item.output : JSON.stringify(item.output)));
}
