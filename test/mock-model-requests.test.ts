import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { parseAnthropicRequest } from "../src/mock-model/anthropic-request.ts";
import { parseChatRequest } from "../src/mock-model/chat-request.ts";
import { parseResponsesRequest } from "../src/mock-model/responses-request.ts";
import { sideRequestAnswer } from "../src/mock-model/side-request.ts";
import { findWorkingDirectory } from "../src/mock-model/working-directory.ts";
import { recorded } from "./fixtures/mock-model/helpers.ts";

/** A deep copy of `value` with every `id` and `call_id` replaced, so no turn tag of ours survives. */
function withForeignIds<Value>(value: Value): Value {
  let counter = 0;
  return JSON.parse(
    JSON.stringify(value, (key, item) => (key === "id" || key === "call_id" ? `foreign_${counter++}` : item)),
  );
}

describe("Claude Code requests (Anthropic Messages)", () => {
  test("the first request: no assistant turn, cwd from the system prompt, Claude's tools, prompt in the opening", () => {
    const request = parseAnthropicRequest(recorded("claude-code-first-request").body);
    assert.equal(request.protocol, "anthropic");
    assert.equal(request.stream, true);
    assert.equal(request.assistantTurns, 0);
    assert.equal(findWorkingDirectory(request.texts), "/tmp/run-claude/work");
    const names = request.tools.map((tool) => tool.name);
    for (const name of ["Write", "Edit", "Read", "Bash"]) assert.ok(names.includes(name), name);
    assert.ok(request.tools.every((tool) => !tool.custom));
    assert.match(request.opening, /write hello\.txt/);
  });

  test("after a tool call: one assistant turn, and role:system entries in messages are not turns", () => {
    const { body } = recorded("claude-code-after-tool");
    const roles = (body.messages as { role: string }[]).map((message) => message.role);
    assert.deepEqual(roles, ["user", "system", "assistant", "user"]);
    assert.equal(parseAnthropicRequest(body).assistantTurns, 1);
  });

  test("a --json-schema run advertises StructuredOutput and carries the verifier marker", () => {
    const request = parseAnthropicRequest(recorded("claude-code-structured-output").body);
    assert.deepEqual(request.tools.map((tool) => tool.name).sort(), ["Grep", "Read", "StructuredOutput"]);
    assert.match(request.opening, /independent verifier/);
  });

  test("the session title request is a side request; conversation requests are not", () => {
    const answer = sideRequestAnswer("anthropic", recorded("claude-code-title").body);
    assert.deepEqual(JSON.parse(answer ?? "null"), { title: "Scripted session" });
    assert.equal(sideRequestAnswer("anthropic", recorded("claude-code-first-request").body), undefined);
    assert.equal(sideRequestAnswer("anthropic", recorded("claude-code-structured-output").body), undefined);
  });
});

describe("Codex requests (OpenAI Responses)", () => {
  test("the first request: developer messages and environment_context are the opening, cwd from <cwd>", () => {
    const request = parseResponsesRequest(recorded("codex-first-request").body);
    assert.equal(request.protocol, "responses");
    assert.equal(request.assistantTurns, 0);
    assert.equal(findWorkingDirectory(request.texts), "/tmp/run-codex/work");
    assert.match(request.opening, /You are Codex/);
    assert.match(request.opening, /write hello\.txt/);
    assert.deepEqual(
      request.tools.filter((tool) => ["apply_patch", "exec_command"].includes(tool.name)),
      [
        { name: "exec_command", custom: false },
        { name: "apply_patch", custom: true },
      ],
    );
  });

  test("text + apply_patch, then two parallel exec_command calls, make two assistant turns", () => {
    const { body } = recorded("codex-after-tools");
    assert.equal(parseResponsesRequest(body).assistantTurns, 2);
    assert.equal(parseResponsesRequest(withForeignIds(body)).assistantTurns, 2);
  });

  test("parallel calls interleaved with their outputs count once when they carry our turn tag", () => {
    const base = recorded("codex-first-request").body;
    const input = [
      ...(base.input as unknown[]),
      { type: "function_call", call_id: "call_mock_t0_a", name: "exec_command", arguments: "{}" },
      { type: "function_call_output", call_id: "call_mock_t0_a", output: "one" },
      { type: "function_call", call_id: "call_mock_t0_b", name: "exec_command", arguments: "{}" },
      { type: "function_call_output", call_id: "call_mock_t0_b", output: "two" },
      { type: "function_call", call_id: "call_mock_t1_c", name: "exec_command", arguments: "{}" },
      { type: "function_call_output", call_id: "call_mock_t1_c", output: "three" },
    ];
    assert.equal(parseResponsesRequest({ ...base, input }).assistantTurns, 2);
  });

  test("a plain string input is one user message", () => {
    const request = parseResponsesRequest({ model: "m", input: "hello", stream: false });
    assert.equal(request.assistantTurns, 0);
    assert.equal(request.opening, "hello");
    assert.equal(request.stream, false);
  });
});

describe("Copilot requests (OpenAI Responses)", () => {
  test("cwd from the instructions, apply_patch is custom, two turns after apply_patch and bash + view", () => {
    const first = parseResponsesRequest(recorded("copilot-first-request").body);
    assert.equal(first.assistantTurns, 0);
    assert.equal(findWorkingDirectory(first.texts), "/tmp/run-copilot/work");
    assert.deepEqual(
      first.tools.find((tool) => tool.name === "apply_patch"),
      { name: "apply_patch", custom: true },
    );
    const later = recorded("copilot-after-tools").body;
    assert.equal(parseResponsesRequest(later).assistantTurns, 2);
    assert.equal(parseResponsesRequest(withForeignIds(later)).assistantTurns, 2);
  });
});

describe("Chat Completions requests", () => {
  test("assistant messages with tool_calls and their tool answers count as turns; system text opens", () => {
    const request = parseChatRequest({
      model: "qwen",
      stream: true,
      tools: [
        { type: "function", function: { name: "read" } },
        { type: "custom", custom: { name: "apply_patch" } },
      ],
      messages: [
        { role: "system", content: "You are the independent verifier. Working directory: /work/repo" },
        { role: "user", content: [{ type: "text", text: "check it" }] },
        {
          role: "assistant",
          content: null,
          tool_calls: [{ id: "a", type: "function", function: { name: "read" } }],
        },
        { role: "tool", tool_call_id: "a", content: "file text" },
        { role: "assistant", content: "more", tool_calls: [{ id: "b", type: "function" }] },
        { role: "tool", tool_call_id: "b", content: "x" },
      ],
    });
    assert.equal(request.assistantTurns, 2);
    assert.match(request.opening, /independent verifier[\s\S]*check it/);
    assert.equal(findWorkingDirectory(request.texts), "/work/repo");
    assert.deepEqual(request.tools, [
      { name: "read", custom: false },
      { name: "apply_patch", custom: true },
    ]);
  });
});
