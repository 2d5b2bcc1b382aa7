/**
 * `loopwright agent`: the real binary in a real repository, against the mock-model server. What a user
 * sees: the model's text streamed, a line per tool call, the end reason and cost, and the exit code.
 */
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { type MockModel, startMockModel } from "../src/mock-model/server.ts";
import type { ConversationInput } from "./support/agent-harness.ts";
import { mathProject } from "./support/failing-projects.ts";
import { createSandbox, type Sandbox } from "./support/loop-sandbox.ts";

const conversations: ConversationInput[] = [
  {
    name: "fix",
    when: { contains: "FIX ADD" },
    turns: [
      { text: "Reading math.js.", tools: [{ name: "read", input: { path: "math.js" } }] },
      { tools: [{ name: "edit", input: { path: "math.js", old_string: "a - b", new_string: "a + b" } }] },
      { tools: [{ name: "bash", input: { command: "node --test" } }] },
      { text: "Fixed add(); the tests pass." },
    ],
  },
  {
    name: "review",
    when: { contains: "REVIEW ONLY" },
    turns: [
      { tools: [{ name: "write", input: { path: "math.js", content: "tampered\n" } }] },
      { tools: [{ name: "run", input: { command: "git status --short" } }] },
      { text: "add() subtracts: that is the bug." },
    ],
  },
  {
    name: "loop",
    when: { contains: "GO ROUND" },
    turns: Array.from({ length: 3 }, () => ({ tools: [{ name: "list", input: {} }] })),
  },
];

let server: MockModel;
let sandbox: Sandbox;
let env: Record<string, string>;
before(async () => {
  server = await startMockModel({ script: { conversations } });
  sandbox = await createSandbox(mathProject);
  env = { ANTHROPIC_BASE_URL: server.url, ANTHROPIC_API_KEY: "mock-key" };
});
after(async () => {
  await server.close();
  await sandbox.cleanup();
});

const agent = (...args: string[]) =>
  sandbox.cli(["agent", ...args, "--model", "anthropic:mock-model"], { env });

describe("loopwright agent", () => {
  it("works in the current directory and streams what it does", async () => {
    const run = await agent("FIX ADD: make the tests pass");
    assert.equal(run.code, 0, run.stdout + run.stderr);
    const lines = run.stdout.trimEnd().split("\n");
    assert.deepEqual(lines.slice(0, 5), [
      "Reading math.js.",
      "→ read math.js",
      "→ edit math.js",
      "→ bash node --test",
      "Fixed add(); the tests pass.",
    ]);
    assert.match(
      lines.at(-1) ?? "",
      /^completed · 4 model call\(s\) · \d+ tokens in, \d+ out · \$0\.\d{4} · anthropic:mock-model$/,
    );
    assert.match(await sandbox.git("diff"), /\+\s+return a \+ b;/);
  });

  it("--read-only has no write tool and runs allowlisted commands only", async () => {
    await sandbox.git("checkout", "--", "math.js");
    const run = await agent("REVIEW ONLY: what is wrong?", "--read-only");
    assert.equal(run.code, 0, run.stdout + run.stderr);
    assert.match(
      run.stdout,
      /→ write \{"path":"math\.js",[^\n]*\n✗ write [^\n]* failed\n→ run git status --short\n/,
    );
    assert.equal(await sandbox.git("status", "--short"), "");
  });

  it("--max-turns stops it with exit 3", async () => {
    const run = await agent("GO ROUND in circles", "--max-turns", "2");
    assert.equal(run.code, 3, run.stdout + run.stderr);
    assert.match(run.stdout, /^max_turns · 2 model call\(s\)/m);
  });

  it("a malformed model id is a one-line usage error", async () => {
    const run = await sandbox.cli(["agent", "hello", "--model", "mystery"], { env });
    assert.equal(run.code, 2);
    assert.match(run.stderr, /^loopwright: model "mystery": name a provider/);
  });
});
