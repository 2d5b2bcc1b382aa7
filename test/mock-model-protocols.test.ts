import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { type MockModel, startMockModel } from "../src/mock-model/server.ts";
import { postJson, recorded, sseData, sseEvents } from "./fixtures/mock-model/helpers.ts";

/**
 * Each wire protocol, streaming and not, over real HTTP, with the request bodies the real CLIs sent.
 * Turn 0 answers with text and two parallel tool calls; turn 1 with text.
 */
let server: MockModel;
before(async () => {
  server = await startMockModel({
    script: {
      models: ["claude-sonnet-4-6", "gpt-5.5"],
      turns: [
        {
          text: "Working in {{cwd}}.",
          tools: [
            { name: "Write", input: { file_path: "{{cwd}}/hello.txt", content: "hi\n" } },
            { name: "Bash", input: { command: "ls {{cwd}}" } },
            {
              name: "apply_patch",
              input: "*** Begin Patch\n*** Add File: {{cwd}}/a.txt\n+a\n*** End Patch\n",
            },
            { name: "exec_command", input: { cmd: "cat a.txt" } },
          ],
          usage: { input: 120, output: 30, cacheRead: 80 },
        },
        { text: "turn 1" },
        { text: "turn 2" },
      ],
    },
  });
});
after(() => server.close());

/** The first recorded Claude request, optionally not streamed. */
const claudeFirst = (stream = true) => ({ ...recorded("claude-code-first-request").body, stream });
const codexFirst = (stream = true) => ({ ...recorded("codex-first-request").body, stream });

describe("Anthropic Messages", () => {
  test("streams message_start, a block per text and tool_use, message_delta and message_stop", async () => {
    const response = await postJson(server.url, "/v1/messages?beta=true", claudeFirst());
    assert.equal(response.status, 200);
    assert.match(response.headers.get("content-type") ?? "", /text\/event-stream/);
    const text = await response.text();
    const events = sseEvents(text);
    const data = sseData(text);
    for (const [index, event] of events.entries()) assert.equal(event.event, data[index].type);
    // Claude Code offers no apply_patch or exec_command: those two still go out, as tool_use blocks.
    const blockTypes = ["content_block_start", "content_block_delta", "content_block_stop"];
    assert.deepEqual(
      events.map((event) => event.event),
      ["message_start", ...Array(5).fill(blockTypes).flat(), "message_delta", "message_stop"],
    );
    const start = data[0].message as Record<string, unknown>;
    assert.equal(start.role, "assistant");
    assert.equal(start.model, "claude-opus-4-8");
    assert.deepEqual(start.content, []);
    assert.deepEqual(start.usage, {
      input_tokens: 120,
      cache_creation_input_tokens: 0,
      cache_read_input_tokens: 80,
      output_tokens: 1,
    });

    const blocks = data.filter((event) => event.type === "content_block_start");
    const deltas = data.filter((event) => event.type === "content_block_delta");
    assert.deepEqual(blocks[0].content_block, { type: "text", text: "" });
    assert.deepEqual(deltas[0].delta, { type: "text_delta", text: "Working in /tmp/run-claude/work." });
    const write = blocks[1].content_block as Record<string, unknown>;
    assert.equal(write.type, "tool_use");
    assert.equal(write.name, "Write");
    assert.deepEqual(write.input, {});
    const writeDelta = deltas[1].delta as { type: string; partial_json: string };
    assert.equal(writeDelta.type, "input_json_delta");
    assert.deepEqual(JSON.parse(writeDelta.partial_json), {
      file_path: "/tmp/run-claude/work/hello.txt",
      content: "hi\n",
    });
    const ids = blocks.slice(1).map((block) => (block.content_block as { id: string }).id);
    assert.equal(new Set(ids).size, 4, "every tool call has its own id");

    const end = data.at(-2) as { delta: { stop_reason: string }; usage: { output_tokens: number } };
    assert.equal(end.delta.stop_reason, "tool_use");
    assert.equal(end.usage.output_tokens, 30);
  });

  test("without stream it answers one message JSON", async () => {
    const response = await postJson(server.url, "/v1/messages", claudeFirst(false));
    const message = (await response.json()) as Record<string, unknown>;
    assert.equal(message.type, "message");
    assert.equal(message.stop_reason, "tool_use");
    const content = message.content as { type: string; name?: string; input?: unknown }[];
    assert.deepEqual(
      content.map((block) => block.type),
      ["text", "tool_use", "tool_use", "tool_use", "tool_use"],
    );
    assert.deepEqual(content[2].input, { command: "ls /tmp/run-claude/work" });
  });

  test("HEAD / and GET / answer, GET /v1/models lists the script's models", async () => {
    assert.equal((await fetch(server.url, { method: "HEAD" })).status, 200);
    assert.equal((await fetch(`${server.url}/`)).status, 200);
    const models = (await (await fetch(`${server.url}/v1/models`)).json()) as { data: { id: string }[] };
    assert.deepEqual(
      models.data.map((model) => model.id),
      ["claude-sonnet-4-6", "gpt-5.5"],
    );
  });
});

describe("OpenAI Responses", () => {
  test("streams items: message with text deltas, custom_tool_call for apply_patch, function_call for the rest", async () => {
    const response = await postJson(server.url, "/v1/responses", codexFirst());
    const data = sseData(await response.text());
    assert.equal(data[0].type, "response.created");
    assert.equal(data.at(-1)?.type, "response.completed");
    assert.deepEqual(
      data.map((event) => event.sequence_number),
      data.map((_, index) => index),
    );
    const textDelta = data.find((event) => event.type === "response.output_text.delta");
    assert.equal(textDelta?.delta, "Working in /tmp/run-codex/work.");
    const added = data.filter((event) => event.type === "response.output_item.added");
    const done = data
      .filter((event) => event.type === "response.output_item.done")
      .map((event) => event.item);
    assert.equal(added.length, 5);
    assert.deepEqual(
      (done as { type: string }[]).map((item) => item.type),
      ["message", "function_call", "function_call", "custom_tool_call", "function_call"],
    );
    const [message, write, , patch, exec] = done as Record<string, unknown>[];
    assert.deepEqual(message.content, [
      { type: "output_text", text: "Working in /tmp/run-codex/work.", annotations: [] },
    ]);
    assert.equal(write.name, "Write");
    assert.equal(patch.name, "apply_patch");
    assert.equal(
      patch.input,
      "*** Begin Patch\n*** Add File: /tmp/run-codex/work/a.txt\n+a\n*** End Patch\n",
    );
    assert.equal(exec.name, "exec_command");
    assert.deepEqual(JSON.parse(String(exec.arguments)), { cmd: "cat a.txt" });
    assert.notEqual(exec.call_id, write.call_id);

    const completed = data.at(-1)?.response as {
      status: string;
      output: unknown[];
      usage: Record<string, unknown>;
    };
    assert.equal(completed.status, "completed");
    assert.deepEqual(completed.output, done);
    assert.equal(completed.usage.input_tokens, 200);
    assert.deepEqual(completed.usage.input_tokens_details, { cached_tokens: 80 });
    assert.equal(completed.usage.output_tokens, 30);
  });

  test("without stream it answers the completed response object", async () => {
    const response = await postJson(server.url, "/v1/responses", codexFirst(false));
    const body = (await response.json()) as { object: string; status: string; output: { type: string }[] };
    assert.equal(body.object, "response");
    assert.equal(body.status, "completed");
    assert.equal(body.output.length, 5);
  });
});

describe("OpenAI Chat Completions", () => {
  const chatBody = (stream: boolean) => ({
    model: "gpt-5.5",
    stream,
    stream_options: { include_usage: true },
    tools: [
      { type: "function", function: { name: "Write" } },
      { type: "function", function: { name: "Bash" } },
      { type: "custom", custom: { name: "apply_patch" } },
      { type: "function", function: { name: "exec_command" } },
    ],
    messages: [
      { role: "system", content: "Working directory: /srv/project" },
      { role: "user", content: "go" },
    ],
  });

  test("streams chunks with content, one tool_calls delta per call, a finish reason, usage and [DONE]", async () => {
    const response = await postJson(server.url, "/v1/chat/completions", chatBody(true));
    const text = await response.text();
    const events = sseEvents(text);
    assert.ok(events.every((event) => event.event === undefined));
    assert.equal(events.at(-1)?.data, "[DONE]");
    const chunks = sseData(text) as { object: string; choices: Record<string, unknown>[]; usage?: unknown }[];
    assert.ok(chunks.every((chunk) => chunk.object === "chat.completion.chunk"));
    const deltas = chunks.flatMap((chunk) =>
      chunk.choices.map((choice) => choice.delta as Record<string, unknown>),
    );
    assert.equal(deltas.map((delta) => delta.content ?? "").join(""), "Working in /srv/project.");
    const calls = deltas.flatMap((delta) => (delta.tool_calls ?? []) as Record<string, unknown>[]);
    assert.deepEqual(
      calls.map((call) => [call.index, call.type]),
      [
        [0, "function"],
        [1, "function"],
        [2, "custom"],
        [3, "function"],
      ],
    );
    assert.deepEqual(JSON.parse((calls[0].function as { arguments: string }).arguments), {
      file_path: "/srv/project/hello.txt",
      content: "hi\n",
    });
    assert.equal((calls[2].custom as { input: string }).input.includes("/srv/project/a.txt"), true);
    const finish = chunks
      .flatMap((chunk) => chunk.choices.map((choice) => choice.finish_reason))
      .filter(Boolean);
    assert.deepEqual(finish, ["tool_calls"]);
    const last = chunks.at(-1);
    assert.deepEqual(last?.choices, []);
    assert.deepEqual(last?.usage, {
      prompt_tokens: 200,
      completion_tokens: 30,
      total_tokens: 230,
      prompt_tokens_details: { cached_tokens: 80 },
    });
  });

  test("without stream it answers one chat.completion", async () => {
    const response = await postJson(server.url, "/v1/chat/completions", chatBody(false));
    const body = (await response.json()) as {
      object: string;
      choices: { message: { content: string; tool_calls: unknown[] }; finish_reason: string }[];
    };
    assert.equal(body.object, "chat.completion");
    assert.equal(body.choices[0].message.content, "Working in /srv/project.");
    assert.equal(body.choices[0].message.tool_calls.length, 4);
    assert.equal(body.choices[0].finish_reason, "tool_calls");
  });
});

describe("turn selection by the assistant turns already in the request", () => {
  const textOf = async (response: Response, protocol: "anthropic" | "responses") => {
    const data = sseData(await response.text());
    const type = protocol === "anthropic" ? "content_block_delta" : "response.output_text.delta";
    return data
      .filter((event) => event.type === type)
      .map((event) => (protocol === "anthropic" ? (event.delta as { text: string }).text : event.delta))
      .join("");
  };

  test("Claude Code after one tool round gets turn 1; Codex and Copilot after two get turn 2", async () => {
    const claude = await postJson(
      server.url,
      "/v1/messages?beta=true",
      recorded("claude-code-after-tool").body,
    );
    assert.equal(await textOf(claude, "anthropic"), "turn 1");
    const codex = await postJson(server.url, "/v1/responses", recorded("codex-after-tools").body);
    assert.equal(await textOf(codex, "responses"), "turn 2");
    const copilot = await postJson(server.url, "/v1/responses", recorded("copilot-after-tools").body);
    assert.equal(await textOf(copilot, "responses"), "turn 2");
  });

  test("a chat request with one assistant message gets turn 1, the same request again gets it again", async () => {
    const body = {
      model: "m",
      messages: [
        { role: "user", content: "go" },
        { role: "assistant", content: "ok" },
        { role: "user", content: "more" },
      ],
    };
    for (let attempt = 0; attempt < 2; attempt++) {
      const answer = (await (await postJson(server.url, "/v1/chat/completions", body)).json()) as {
        choices: { message: { content: string } }[];
      };
      assert.equal(answer.choices[0].message.content, "turn 1");
    }
  });
});
