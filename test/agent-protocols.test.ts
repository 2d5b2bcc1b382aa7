/**
 * The built-in agent loop over real HTTP against the mock-model server, once per wire protocol
 * (Anthropic Messages, OpenAI Responses, Chat Completions through openai-compatible): real tools in a
 * temporary folder, real processes, the real AI SDK providers. One server serves every scenario; a
 * scenario's conversation is picked by the marker its prompt opens with.
 */
import assert from "node:assert/strict";
import { readFile, symlink, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import type { LoggedRequest } from "../src/mock-model/request-log.ts";
import { type MockModel, startMockModel } from "../src/mock-model/server.ts";
import { findTaggedProcesses, stepTagVariable } from "../src/process/sweep.ts";
import {
  conversation,
  createWorkspace,
  type Protocol,
  protocols,
  runScenario,
  type TurnInput,
  type Workspace,
} from "./support/agent-harness.ts";
import { mathProject } from "./support/failing-projects.ts";

/** Two commands that each wait for the other to start: they finish only when run at the same time. */
const rendezvous = (mine: string, theirs: string) =>
  `touch ${mine}.started; for i in $(seq 100); do [ -f ${theirs}.started ] && break; sleep 0.05; done; ` +
  `[ -f ${theirs}.started ] && echo "${mine} met ${theirs}" || echo "${mine} waited alone"`;

const scenarios: Record<string, TurnInput[]> = {
  fix: [
    { text: "Reading math.js.", tools: [{ name: "read", input: { path: "math.js" } }] },
    { tools: [{ name: "edit", input: { path: "math.js", old_string: "a - b", new_string: "a + b" } }] },
    { tools: [{ name: "bash", input: { command: "node --test" } }] },
    { text: "Fixed add(): it subtracted. The tests pass." },
  ],
  parallel: [
    {
      tools: [
        { name: "bash", input: { command: rendezvous("left", "right"), timeout: 10 } },
        { name: "bash", input: { command: rendezvous("right", "left"), timeout: 10 } },
        { name: "read", input: { path: "math.js" } },
      ],
    },
    { text: "Both ran." },
  ],
  recover: [
    {
      tools: [
        { name: "edit", input: { path: "math.js", old_string: "return a-b;", new_string: "return a + b;" } },
      ],
    },
    {
      tools: [
        {
          name: "edit",
          input: { path: "math.js", old_string: "return a - b;", new_string: "return a + b;" },
        },
      ],
    },
    { text: "Fixed on the second try." },
  ],
  "unknown-tool": [
    { tools: [{ name: "frobnicate", input: { level: 11 } }] },
    { text: "No such tool, then." },
  ],
  "invalid-arguments": [
    { tools: [{ name: "read", input: { file: "math.js", offset: "two" } }] },
    { tools: [{ name: "read", input: { path: "math.js" } }] },
    { text: "Read it." },
  ],
  "max-turns": Array.from({ length: 5 }, () => ({ tools: [{ name: "list", input: {} }] })),
  budget: [
    {
      tools: [{ name: "write", input: { path: "spent.txt", content: "expensive\n" } }],
      usage: { input: 1_000_000, output: 0 },
    },
    { text: "This turn must never be requested." },
  ],
  "rate-limited": [{ error: { status: 429, retryAfter: 0.2, times: 1 }, text: "Answered after the wait." }],
  overloaded: [{ error: { status: 529, retryAfter: 0, times: 2 }, text: "Answered at the third try." }],
  outage: [{ error: { status: 500, message: "scripted outage" } }],
  hang: [{ hang: true }],
  escape: [
    {
      tools: [
        { name: "read", input: { path: "../../etc/passwd" } },
        { name: "read", input: { path: "link-out/passwd" } },
        { name: "write", input: { path: "link-file", content: "overwritten\n" } },
        { name: "list", input: { path: "/etc" } },
      ],
    },
    { text: "All refused." },
  ],
  abort: [{ tools: [{ name: "bash", input: { command: "sleep 30" } }] }, { text: "never" }],
};

let server: MockModel;
before(async () => {
  server = await startMockModel({
    script: {
      conversations: protocols.flatMap((protocol) =>
        Object.entries(scenarios).map(([name, turns]) => conversation(protocol, name, turns)),
      ),
    },
  });
});
after(() => server.close());

const requestsOf = (protocol: Protocol, name: string): LoggedRequest[] =>
  server.requests.filter((request) => request.conversation === `${protocol}/${name}`);
const bodyAt = (protocol: Protocol, name: string, turn: number): string =>
  JSON.stringify(
    requestsOf(protocol, name)
      .filter((request) => request.turn === turn)
      .at(-1)?.body ?? null,
  );

async function inWorkspace(
  run: (workspace: Workspace) => Promise<void>,
  files: Record<string, string> = mathProject,
) {
  const workspace = await createWorkspace(files);
  try {
    await run(workspace);
  } finally {
    await workspace.cleanup();
  }
}

for (const protocol of protocols) {
  describe(`agent loop over ${protocol}`, () => {
    const scenario = (
      name: string,
      workspace: Workspace,
      extra: Parameters<typeof runScenario>[0] extends infer O ? Partial<O> : never = {},
    ) => runScenario({ protocol, url: server.url, name, workspace, ...extra });

    it("makes a failing test pass in several steps: read, edit, run the tests, answer", () =>
      inWorkspace(async (workspace) => {
        const { result, events } = await scenario("fix", workspace);
        assert.equal(result.endReason, "completed", result.error);
        assert.equal(result.turns, 4);
        assert.equal(
          await readFile(join(workspace.root, "math.js"), "utf8"),
          mathProject["math.js"].replace("-", "+"),
        );
        assert.match(bodyAt(protocol, "fix", 3), /pass 1/, "the model saw the tests pass");
        assert.match(bodyAt(protocol, "fix", 1), /return a - b;/, "the model saw the file it read");
        const streamed = events.flatMap((event) => (event.type === "text" ? [event.text] : [])).join("");
        assert.match(streamed, /Reading math\.js\.[\s\S]*Fixed add\(\)/);
        assert.deepEqual(
          events.flatMap((event) => (event.type === "tool" ? [`${event.name} ${event.detail}`] : [])),
          ["read math.js", "edit math.js", "bash node --test"],
        );
        const usage = events.filter((event) => event.type === "usage");
        assert.equal(usage.length, 4, "a usage event after each model call");
        assert.ok((result.costUsd ?? 0) > 0, "priced from the shared table");
        assert.match(result.text, /Fixed add\(\)/);
        if (protocol === "anthropic") {
          const request = requestsOf(protocol, "fix")[3].body as { system: unknown[]; messages: unknown[] };
          assert.match(JSON.stringify(request.system), /"cache_control":\{"type":"ephemeral"\}/);
          assert.match(JSON.stringify(request.messages.at(-1)), /"cache_control":\{"type":"ephemeral"\}/);
          assert.equal(
            JSON.stringify(request.messages).split('"cache_control"').length - 1,
            1,
            "one moving breakpoint",
          );
        }
      }));

    it("runs the tool calls of one answer in parallel and returns every result", () =>
      inWorkspace(async (workspace) => {
        const { result, events } = await scenario("parallel", workspace);
        assert.equal(result.endReason, "completed", result.error);
        const body = bodyAt(protocol, "parallel", 1);
        assert.match(body, /left met right/);
        assert.match(body, /right met left/);
        assert.match(body, /return a - b;/);
        const order = events.flatMap((event) =>
          event.type === "tool" || event.type === "tool_ended" ? [event.type] : [],
        );
        assert.deepEqual(order.slice(0, 3), ["tool", "tool", "tool"], "all three started before any ended");
      }));

    it("returns a failing tool's error to the model, which corrects the call", () =>
      inWorkspace(async (workspace) => {
        const { result } = await scenario("recover", workspace);
        assert.equal(result.endReason, "completed", result.error);
        assert.match(
          bodyAt(protocol, "recover", 1),
          /old_string was not found in math\.js[^"]*Similar text is at line 2/,
        );
        assert.match(await readFile(join(workspace.root, "math.js"), "utf8"), /return a \+ b;/);
      }));

    it("answers a call of an unknown tool with the list of tools", () =>
      inWorkspace(async (workspace) => {
        const { result } = await scenario("unknown-tool", workspace);
        assert.equal(result.endReason, "completed", result.error);
        assert.match(
          bodyAt(protocol, "unknown-tool", 1),
          /There is no tool named \\"frobnicate\\". The tools are: read, write, edit, bash, grep, glob, list/,
        );
      }));

    it("answers invalid arguments with what is wrong, checked against the tool's schema", () =>
      inWorkspace(async (workspace) => {
        const { result } = await scenario("invalid-arguments", workspace);
        assert.equal(result.endReason, "completed", result.error);
        const body = bodyAt(protocol, "invalid-arguments", 1);
        assert.match(body, /Invalid arguments for read: path: [^;]*expected string/);
        assert.match(body, /offset: [^;]*expected number/);
        assert.match(body, /unknown field file/);
        assert.match(bodyAt(protocol, "invalid-arguments", 2), /return a - b;/);
      }));

    it("stops at the turn limit", () =>
      inWorkspace(async (workspace) => {
        const { result } = await scenario("max-turns", workspace, { maxTurns: 2 });
        assert.equal(result.endReason, "max_turns");
        assert.equal(result.turns, 2);
        assert.equal(requestsOf(protocol, "max-turns").length, 2);
      }));

    it("stops when the cost passes the budget, after running the tools already asked for", () =>
      inWorkspace(async (workspace) => {
        const { result } = await scenario("budget", workspace, { maxCostUsd: 0.5 });
        assert.equal(result.endReason, "max_budget");
        assert.ok(result.costUsd !== undefined && result.costUsd >= 1, `cost ${result.costUsd}`);
        assert.equal(requestsOf(protocol, "budget").length, 1);
        assert.equal(await readFile(join(workspace.root, "spent.txt"), "utf8"), "expensive\n");
      }));

    it("retries a 429 after the retry-after the server asked for, then goes on", () =>
      inWorkspace(async (workspace) => {
        const { result, events } = await scenario("rate-limited", workspace);
        assert.equal(result.endReason, "completed", result.error);
        assert.equal(result.text, "Answered after the wait.");
        assert.deepEqual(
          requestsOf(protocol, "rate-limited").map((request) => request.status),
          [429, 200],
        );
        assert.deepEqual(
          events.filter((event) => event.type === "model_retried"),
          [{ type: "model_retried", status: 429, delayMs: 200, attempt: 1 }],
        );
      }));

    it("retries a 529 (overloaded) until it answers", () =>
      inWorkspace(async (workspace) => {
        const { result } = await scenario("overloaded", workspace);
        assert.equal(result.endReason, "completed", result.error);
        assert.deepEqual(
          requestsOf(protocol, "overloaded").map((request) => request.status),
          [529, 529, 200],
        );
      }));

    it("ends with reason error on a 500, without retrying, saying what the server said", () =>
      inWorkspace(async (workspace) => {
        const { result } = await scenario("outage", workspace);
        assert.equal(result.endReason, "error");
        assert.match(result.error ?? "", /HTTP 500.*scripted outage/);
        assert.equal(requestsOf(protocol, "outage").length, 1);
      }));

    it("ends with reason timeout when the server never answers", () =>
      inWorkspace(async (workspace) => {
        const { result } = await scenario("hang", workspace, { timeoutMs: 800 });
        assert.equal(result.endReason, "timeout");
        assert.equal(requestsOf(protocol, "hang").length, 1);
      }));

    it("refuses paths that escape the worktree, symlinks included", () =>
      inWorkspace(async (workspace) => {
        const outside = join(workspace.scratch, "..", "outside.txt");
        await writeFile(outside, "untouched\n");
        await symlink("/etc", join(workspace.root, "link-out"));
        await symlink(outside, join(workspace.root, "link-file"));
        const { result, events } = await scenario("escape", workspace);
        assert.equal(result.endReason, "completed", result.error);
        const body = bodyAt(protocol, "escape", 1);
        assert.match(body, /\.\.\/\.\.\/etc\/passwd is outside the working directory[^"]*refused/);
        assert.match(
          body,
          /link-out\/passwd leads outside the working directory[^"]*symbolic link[^"]*refused/,
        );
        assert.match(body, /link-file leads outside the working directory[^"]*refused/);
        assert.match(body, /\/etc is outside the working directory/);
        assert.doesNotMatch(body, /root:x?:?0:0/, "no line of /etc/passwd reached the model");
        assert.equal(await readFile(outside, "utf8"), "untouched\n");
        assert.equal(events.filter((event) => event.type === "tool_ended" && !event.ok).length, 4);
      }));

    // The safety timeout fails the test if the abort waits for `sleep 30` instead of killing it.
    it("ends with reason aborted when cancelled, killing the running command", { timeout: 15_000 }, () =>
      inWorkspace(async (workspace) => {
        const controller = new AbortController();
        const step = (value: string) => value.startsWith(`agent-test:${protocol}-abort-`);
        const running = scenario("abort", workspace, { signal: controller.signal });
        const poll = setInterval(() => {
          if (findTaggedProcesses(stepTagVariable, step).length > 0) controller.abort();
        }, 20);
        const { result } = await running.finally(() => clearInterval(poll));
        assert.equal(result.endReason, "aborted");
        assert.deepEqual(findTaggedProcesses(stepTagVariable, step), [], "sleep 30 was killed");
      }),
    );
  });
}
