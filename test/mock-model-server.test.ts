import assert from "node:assert/strict";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, describe, test } from "node:test";
import type { ScriptInput } from "../src/mock-model/script.ts";
import { type MockModel, startMockModel } from "../src/mock-model/server.ts";
import { postJson, recorded, sseData } from "./fixtures/mock-model/helpers.ts";

const folder = mkdtempSync(join(tmpdir(), "loopwright-mock-server-"));
const servers: MockModel[] = [];
after(async () => {
  await Promise.all(servers.map((server) => server.close()));
  rmSync(folder, { recursive: true, force: true });
});

async function serve(script: ScriptInput, log?: string): Promise<MockModel> {
  const server = await startMockModel({ script, log });
  servers.push(server);
  return server;
}

/** The Anthropic content blocks a streamed answer carries, rebuilt from its SSE events. */
async function anthropicBlocks(response: Response): Promise<Record<string, unknown>[]> {
  const blocks: Record<string, unknown>[] = [];
  for (const event of sseData(await response.text())) {
    if (event.type === "content_block_start") blocks.push({ ...(event.content_block as object) });
    if (event.type === "content_block_delta") {
      const delta = event.delta as { text?: string; partial_json?: string };
      const block = blocks[event.index as number];
      if (delta.text !== undefined) block.text = String(block.text) + delta.text;
      if (delta.partial_json !== undefined) block.input = JSON.parse(delta.partial_json);
    }
  }
  return blocks;
}

/** The output items of a streamed Responses answer. */
async function responseItems(response: Response): Promise<Record<string, unknown>[]> {
  return sseData(await response.text())
    .filter((event) => event.type === "response.output_item.done")
    .map((event) => event.item as Record<string, unknown>);
}

/** Resolves once the server has logged `count` requests; polls without a deadline of its own. */
async function logged(server: MockModel, count: number): Promise<void> {
  while (server.requests.length < count) await new Promise((resolve) => setTimeout(resolve, 5));
}

const verifierMarker = "independent verifier";

describe("conversations selected by a marker", () => {
  const script: ScriptInput = {
    conversations: [
      {
        name: "verifier",
        when: { contains: verifierMarker },
        turns: [{ json: { verdict: "approve", evidence: "{{cwd}}/hello.txt:1" } }],
      },
      {
        name: "maker",
        turns: [{ tools: [{ name: "Write", input: { file_path: "{{cwd}}/a", content: "a" } }] }],
      },
    ],
  };

  test("a maker and a verifier session run against one server at once", async () => {
    const server = await serve(script);
    const [maker, verifier] = await Promise.all([
      postJson(server.url, "/v1/messages?beta=true", recorded("claude-code-first-request").body),
      postJson(server.url, "/v1/messages?beta=true", recorded("claude-code-structured-output").body),
    ]);
    const [write] = await anthropicBlocks(maker);
    assert.equal(write.name, "Write");
    // The verifier's Claude Code advertises StructuredOutput (--json-schema): the json turn is that tool call.
    const [structured] = await anthropicBlocks(verifier);
    assert.equal(structured.type, "tool_use");
    assert.equal(structured.name, "StructuredOutput");
    assert.deepEqual(structured.input, { verdict: "approve", evidence: "/tmp/run-claude/work/hello.txt:1" });
    assert.deepEqual(server.requests.map((entry) => entry.conversation).sort(), ["maker", "verifier"]);
  });

  test("a json turn is JSON text where no StructuredOutput tool is offered (Codex --output-schema)", async () => {
    const server = await serve(script);
    const body = recorded("codex-first-request").body;
    const input = [
      ...(body.input as unknown[]),
      { type: "message", role: "user", content: "You are an independent verifier." },
    ];
    const [message] = await responseItems(await postJson(server.url, "/v1/responses", { ...body, input }));
    const [part] = message.content as { text: string }[];
    assert.deepEqual(JSON.parse(part.text), {
      verdict: "approve",
      evidence: "/tmp/run-codex/work/hello.txt:1",
    });
  });

  test("when every conversation has a marker and none matches, the answer says so", async () => {
    const server = await serve({
      conversations: [{ name: "only", when: { contains: "zebra" }, turns: [{ text: "x" }] }],
    });
    const [block] = await anthropicBlocks(
      await postJson(server.url, "/v1/messages", recorded("claude-code-first-request").body),
    );
    assert.match(
      String(block.text),
      /no conversation of the script matches this request \(markers: "zebra"\)/,
    );
    assert.equal(server.requests[0].outcome, "no_conversation");
  });
});

describe("{{cwd}}", () => {
  test("comes from each client's own request, or from the X-Loopwright-Cwd header", async () => {
    const server = await serve({ turns: [{ text: "cwd={{cwd}}" }] });
    const textOf = async (items: Promise<Record<string, unknown>[]>) =>
      ((await items)[0].content as { text: string }[])[0].text;
    const [claude] = await anthropicBlocks(
      await postJson(server.url, "/v1/messages", recorded("claude-code-first-request").body),
    );
    assert.equal(claude.text, "cwd=/tmp/run-claude/work");
    const codex = responseItems(
      await postJson(server.url, "/v1/responses", recorded("codex-first-request").body),
    );
    assert.equal(await textOf(codex), "cwd=/tmp/run-codex/work");
    const copilot = responseItems(
      await postJson(server.url, "/v1/responses", recorded("copilot-first-request").body),
    );
    assert.equal(await textOf(copilot), "cwd=/tmp/run-copilot/work");
    const headed = responseItems(
      await postJson(server.url, "/v1/responses", recorded("codex-first-request").body, {
        headers: { "X-Loopwright-Cwd": "/elsewhere" },
      }),
    );
    assert.equal(await textOf(headed), "cwd=/elsewhere");
    assert.deepEqual(
      server.requests.map((entry) => entry.cwd),
      ["/tmp/run-claude/work", "/tmp/run-codex/work", "/tmp/run-copilot/work", "/elsewhere"],
    );
  });

  test("is left as is, with a note in the log, when the request names no directory", async () => {
    const server = await serve({ turns: [{ text: "cwd={{cwd}}" }] });
    const response = await postJson(server.url, "/v1/chat/completions", {
      model: "m",
      messages: [{ role: "user", content: "hi" }],
    });
    const body = (await response.json()) as { choices: { message: { content: string } }[] };
    assert.equal(body.choices[0].message.content, "cwd={{cwd}}");
    assert.match(server.requests[0].notes.join("\n"), /no working directory found/);
  });
});

describe("errors, delays and hangs", () => {
  test("an error with times fails the first N requests of that turn with retry-after, then answers", async () => {
    const server = await serve({
      conversations: [
        {
          name: "verifier",
          when: { contains: verifierMarker },
          turns: [{ error: { status: 500, times: 1 }, text: "v" }],
        },
        { name: "maker", turns: [{ error: { status: 529, retryAfter: 3, times: 2 }, text: "recovered" }] },
      ],
    });
    const body = recorded("claude-code-first-request").body;
    for (let attempt = 0; attempt < 2; attempt++) {
      const response = await postJson(server.url, "/v1/messages", body);
      assert.equal(response.status, 529);
      assert.equal(response.headers.get("retry-after"), "3");
      assert.deepEqual(await response.json(), {
        type: "error",
        error: { type: "overloaded_error", message: "mock-model: scripted error 529" },
      });
    }
    const [block] = await anthropicBlocks(await postJson(server.url, "/v1/messages", body));
    assert.equal(block.text, "recovered");
    // Another conversation's turn keeps its own count; OpenAI clients get OpenAI's error shape.
    const verifierBody = recorded("codex-first-request").body;
    const input = [...(verifierBody.input as unknown[]), { role: "user", content: "independent verifier" }];
    const failed = await postJson(server.url, "/v1/responses", { ...verifierBody, input });
    assert.equal(failed.status, 500);
    assert.equal(failed.headers.get("retry-after"), null);
    assert.deepEqual(((await failed.json()) as { error: { type: string } }).error.type, "server_error");
    assert.equal((await postJson(server.url, "/v1/responses", { ...verifierBody, input })).status, 200);
    assert.deepEqual(
      server.requests.map((entry) => [entry.conversation, entry.outcome, entry.status]),
      [
        ["maker", "error", 529],
        ["maker", "error", 529],
        ["maker", "answered", 200],
        ["verifier", "error", 500],
        ["verifier", "answered", 200],
      ],
    );
  });

  test("Claude Code's title side request neither takes a turn nor spends an error", async () => {
    const server = await serve({ turns: [{ error: { status: 429, times: 1 }, text: "after the error" }] });
    const title = await postJson(server.url, "/v1/messages", recorded("claude-code-title").body);
    const [block] = await anthropicBlocks(title);
    assert.deepEqual(JSON.parse(String(block.text)), { title: "Scripted session" });
    assert.equal(
      (await postJson(server.url, "/v1/messages", recorded("claude-code-first-request").body)).status,
      429,
    );
    assert.deepEqual(
      server.requests.map((entry) => entry.outcome),
      ["side_request", "error"],
    );
  });

  test("a delayed answer comes after its delay and does not hold up other requests", async () => {
    const server = await serve({
      conversations: [
        { name: "slow", when: { contains: "slow please" }, turns: [{ text: "late", delay: 30 }] },
        { name: "quick", turns: [{ text: "soon", delay: "20ms" }] },
      ],
    });
    let slowSettled = false;
    const slow = postJson(server.url, "/v1/chat/completions", {
      model: "m",
      messages: [{ role: "user", content: "slow please" }],
    }).then(
      (response) => response.text(),
      (error: Error) => error,
    );
    slow.finally(() => {
      slowSettled = true;
    });
    await logged(server, 1);
    const quick = await postJson(server.url, "/v1/chat/completions", {
      model: "m",
      messages: [{ role: "user", content: "hi" }],
    });
    assert.equal(
      ((await quick.json()) as { choices: { message: { content: string } }[] }).choices[0].message.content,
      "soon",
    );
    assert.equal(slowSettled, false, "the 30 s answer was sent early");
    await server.close();
    assert.ok((await slow) instanceof Error, "closing the server ends the delayed request");
    assert.equal(server.requests[0].aborted, true);
  });

  test("a hang holds the request until the client aborts, and the server keeps serving", async () => {
    const server = await serve({
      conversations: [
        { name: "stuck", when: { contains: "hang here" }, turns: [{ hang: true }] },
        { name: "fine", turns: [{ text: "still here" }] },
      ],
    });
    const controller = new AbortController();
    const hung = postJson(
      server.url,
      "/v1/chat/completions",
      { model: "m", messages: [{ role: "user", content: "hang here" }] },
      { signal: controller.signal },
    );
    await logged(server, 1);
    assert.equal(server.requests[0].outcome, "hang");
    assert.equal(server.requests[0].status, null);
    controller.abort();
    await assert.rejects(hung, { name: "AbortError" });
    const next = await postJson(server.url, "/v1/chat/completions", {
      model: "m",
      messages: [{ role: "user", content: "hi" }],
    });
    assert.equal(
      ((await next.json()) as { choices: { message: { content: string } }[] }).choices[0].message.content,
      "still here",
    );
    while (!server.requests[0].aborted) await new Promise((resolve) => setTimeout(resolve, 5));
  });

  test("close() ends hung requests instead of waiting for them", async () => {
    const server = await serve({ turns: [{ hang: true }] });
    const hung = postJson(server.url, "/v1/messages", recorded("claude-code-first-request").body);
    await logged(server, 1);
    await server.close();
    await assert.rejects(hung);
    assert.equal(server.requests[0].aborted, true);
  });
});

describe("the request log", () => {
  test("every request is kept in order and appended to the log file as a JSON line", async () => {
    const logFile = join(folder, "requests.jsonl");
    const server = await serve({ turns: [{ text: "one" }] }, logFile);
    await fetch(server.url, { method: "HEAD" });
    await postJson(server.url, "/v1/messages?beta=true", recorded("claude-code-first-request").body);
    await postJson(server.url, "/v1/messages?beta=true", recorded("claude-code-after-tool").body);
    await postJson(server.url, "/v1/nowhere", {});
    const badBody = await fetch(`${server.url}/v1/responses`, { method: "POST", body: "not json" });
    assert.equal(badBody.status, 400);

    const lines = readFileSync(logFile, "utf8")
      .trim()
      .split("\n")
      .map((line) => JSON.parse(line));
    assert.equal(lines.length, 5);
    assert.deepEqual(lines, JSON.parse(JSON.stringify(server.requests)));
    assert.deepEqual(
      lines.map((entry) => [
        entry.method,
        entry.path,
        entry.protocol,
        entry.turn,
        entry.outcome,
        entry.status,
      ]),
      [
        ["HEAD", "/", undefined, undefined, "probe", 200],
        ["POST", "/v1/messages?beta=true", "anthropic", 0, "answered", 200],
        ["POST", "/v1/messages?beta=true", "anthropic", 1, "script_ended", 200],
        ["POST", "/v1/nowhere", undefined, undefined, "rejected", 404],
        ["POST", "/v1/responses", "responses", undefined, "rejected", 400],
      ],
    );
    const answered = lines[1];
    assert.equal(answered.model, "claude-opus-4-8");
    assert.equal(answered.conversation, "default");
    assert.equal(answered.stream, true);
    assert.equal(answered.body.messages.length, 2);
    assert.match(lines[2].notes[0], /the script has no turn 2 in conversation "default" \(it has 1\)/);
  });

  test("past the end of the script the client reads a text saying the script ran out", async () => {
    const server = await serve({ turns: [] });
    const [block] = await anthropicBlocks(
      await postJson(server.url, "/v1/messages", recorded("claude-code-first-request").body),
    );
    assert.match(String(block.text), /^mock-model: the script has no turn 1/);
  });
});
