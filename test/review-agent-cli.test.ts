/**
 * Review rounds with a real agent CLI as the reviewer (codex, and claude-code), driven by the mock-model server (the only fake):
 * the real `codex` reads the patch in its read-only sandbox and answers through its structured output
 * (OpenAI's strict schema, where an optional `line` comes back as null); one `changes_requested`, the
 * scripted maker answers it in a new turn, then `ok`, then the gates and the verifier.
 */
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import type { ScriptInput } from "../src/mock-model/script.ts";
import { type EngineLoops, startEngineLoops } from "./support/engine-loops.ts";
import { createSandbox, type Sandbox } from "./support/loop-sandbox.ts";

const script: ScriptInput = {
  models: ["gpt-5.5"],
  conversations: [
    {
      name: "round-1",
      when: { contains: "review round 1 of at most 3" },
      turns: [
        {
          json: {
            verdict: "changes_requested",
            findings: [
              { severity: "major", file: "notes.txt", line: 1, message: "Remove the debugging note." },
              { severity: "nit", file: "answer.txt", line: null, message: "Fine as it is." },
            ],
          },
          usage: { input: 1200, output: 80 },
        },
      ],
    },
    {
      name: "round-2",
      when: { contains: "review round 2 of at most 3" },
      turns: [{ json: { verdict: "ok", findings: [] }, usage: { input: 900, output: 20 } }],
    },
    {
      name: "claude-round-1",
      when: { contains: "review round 1 of at most 2" },
      turns: [
        {
          json: {
            verdict: "changes_requested",
            findings: [{ severity: "blocker", file: "notes.txt", line: 1, message: "Delete this file." }],
          },
        },
      ],
    },
    {
      name: "claude-round-2",
      when: { contains: "review round 2 of at most 2" },
      turns: [{ json: { verdict: "ok", findings: [] } }],
    },
  ],
};

let loops: EngineLoops;
let sandbox: Sandbox;
before(async () => {
  loops = await startEngineLoops(script);
  sandbox = await createSandbox({ "answer.txt": "0\n" });
});
after(async () => {
  await loops?.close();
  await sandbox?.cleanup();
});

const spec = `name: codex-reviews
goal: answer.txt says 42, and no debugging leftovers remain.
repo: ./repo
maker:
  engine: scripted
  turns:
    - { say: "wrote the answer and a note", write: { answer.txt: "42\\n", notes.txt: "debug: remove me\\n" } }
    - { say: "removed the note", delete: [notes.txt] }
verifier: { engine: scripted, turns: [{ verdict: auto }] }
review: { engine: codex, model: gpt-5.5, rounds: 3, checklist: "debugging leftovers, stray files" }
gates:
  - { id: answer, kind: tests-pass, run: "grep -qx 42 answer.txt" }
`;

describe("a real agent CLI as the reviewer", () => {
  test("one changes_requested, the maker answers it, then ok: verified, every round on the timeline", async () => {
    const { run, events, summary, output } = await loops.run(sandbox, "codex-reviews", spec, {
      json: true,
      timeoutMs: 120_000,
    });
    assert.equal(run.code, 0, output);
    assert.equal(summary.stopReason, "verified");
    const ended = events.filter((event) => event.type === "review_ended");
    assert.deepEqual(
      ended.map((event) => `${event.data.round}:${event.data.status}:${event.data.verdict}`),
      ["1:reviewed:changes_requested", "2:reviewed:ok"],
    );
    assert.deepEqual(ended[0].data.findings, [
      { severity: "major", file: "notes.txt", line: 1, message: "Remove the debugging note." },
      { severity: "nit", file: "answer.txt", message: "Fine as it is." },
    ]);
    assert.ok(Number(ended[0].data.costUsd) > 0, "codex's tokens are priced");

    // The reviewer saw the patch, the goal and the checklist; not the gates, their logs or the maker's words.
    const [first] = loops.requestsOf("round-1");
    const sent = JSON.stringify(first.body);
    assert.match(sent, /\+debug: remove me/);
    assert.match(sent, /debugging leftovers, stray files/);
    assert.doesNotMatch(sent, /grep -qx 42/);
    assert.doesNotMatch(sent, /wrote the answer and a note/);
    const [second] = loops.requestsOf("round-2");
    assert.match(JSON.stringify(second.body), /-debug: remove me/);
    assert.doesNotMatch(JSON.stringify(second.body), /\+42/, "round 2 reads only the answering turn's patch");

    const rework = events.filter((event) => event.type === "maker_started")[1];
    assert.match(String(rework.data.brief), /\[major\] notes\.txt:1: Remove the debugging note\./);
    assert.equal(await sandbox.git("ls-tree", "--name-only", "loop/codex-reviews"), "answer.txt");
    assert.equal(await sandbox.git("rev-list", "--count", "main..loop/codex-reviews"), "2");
  });

  test("claude-code reviews the same way, answering through its structured output tool", async () => {
    const claudeSpec = spec
      .replace("name: codex-reviews", "name: claude-reviews")
      .replace(
        "review: { engine: codex, model: gpt-5.5, rounds: 3,",
        "review: { engine: claude-code, rounds: 2,",
      );
    const { run, events, summary, output } = await loops.run(sandbox, "claude-reviews", claudeSpec, {
      json: true,
      timeoutMs: 120_000,
    });
    assert.equal(run.code, 0, output);
    assert.equal(summary.stopReason, "verified");
    assert.deepEqual(
      events
        .filter((event) => event.type === "review_ended")
        .map((event) => `${event.data.round}:${event.data.verdict}`),
      ["1:changes_requested", "2:ok"],
    );
    assert.ok(loops.requestsOf("claude-round-1").every((request) => request.protocol === "anthropic"));
    assert.equal(await sandbox.git("ls-tree", "--name-only", "loop/claude-reviews"), "answer.txt");
  });
});
