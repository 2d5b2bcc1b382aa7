/**
 * The builtin engine end to end: loopwright's own agent as the maker and as the verifier of real loops
 * run by the real `loopwright` binary against the mock-model server (maker over OpenAI Responses,
 * verifier over Anthropic Messages: another provider), plus one read-only verifier turn through the
 * engine itself over Chat Completions.
 */
import assert from "node:assert/strict";
import { existsSync } from "node:fs";
import { mkdtemp, readFile, realpath, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { createBuiltinEngine } from "../src/engines/builtin/builtin-engine.ts";
import type { ConversationInput } from "./support/agent-harness.ts";
import { type EngineLoops, startEngineLoops } from "./support/engine-loops.ts";
import { fixedMath, mathApproval, mathProject } from "./support/failing-projects.ts";
import { createSandbox, type Sandbox } from "./support/loop-sandbox.ts";
import { createProbeFolders, probeRequest } from "./support/read-only-probe.ts";

const conversations: ConversationInput[] = [
  {
    name: "bi-fix",
    when: { contains: "# Loop bi-fix: iteration" },
    turns: [
      { text: "Looking at math.js.", tools: [{ name: "read", input: { path: "math.js" } }] },
      { tools: [{ name: "edit", input: { path: "math.js", old_string: "a - b", new_string: "a + b" } }] },
      { tools: [{ name: "bash", input: { command: "node --test" } }] },
      { text: "Fixed add(): it subtracted. node --test passes." },
    ],
  },
  {
    name: "bi-hang",
    when: { contains: "# Loop bi-hang: iteration" },
    turns: [{ tools: [{ name: "bash", input: { command: "echo started" } }] }, { hang: true }],
  },
  {
    name: "verifier",
    when: { contains: "independent verifier of a coding loop" },
    turns: [
      {
        tools: [
          { name: "run", input: { command: "git show --stat HEAD" } },
          { name: "read", input: { path: "math.js" } },
          { name: "write", input: { path: "math.js", content: "tampered\n" } },
        ],
      },
      { json: mathApproval },
    ],
  },
  {
    name: "turn-limit",
    when: { contains: "ENDS: turn limit" },
    turns: [
      { text: "Listing.", tools: [{ name: "list", input: {} }] },
      { tools: [{ name: "list", input: {} }] },
    ],
  },
  {
    name: "outage",
    when: { contains: "ENDS: outage" },
    turns: [{ error: { status: 500, message: "scripted outage" } }],
  },
  {
    name: "expensive",
    when: { contains: "ENDS: budget" },
    turns: [{ tools: [{ name: "list", input: {} }], usage: { input: 2_000_000 } }, { text: "never" }],
  },
  {
    name: "read-only",
    when: { contains: "READ-ONLY PROBE" },
    turns: [
      {
        tools: [
          { name: "read", input: { path: "{{cwd}}/../logs/tests.log" } },
          { name: "read", input: { path: "{{cwd}}/../logs/maker-transcript.jsonl" } },
          { name: "bash", input: { command: "touch bashed.txt" } },
        ],
      },
      { text: `Ruling:\n\`\`\`json\n${JSON.stringify(mathApproval)}\n\`\`\`` },
    ],
  },
];

let loops: EngineLoops;
before(async () => {
  // The built-in agent talks to the model itself: only its providers' variables.
  loops = await startEngineLoops(
    { conversations },
    {
      env: (url) => ({
        ANTHROPIC_BASE_URL: url,
        ANTHROPIC_API_KEY: "mock-key",
        OPENAI_BASE_URL: `${url}/v1`,
        OPENAI_API_KEY: "mock-key",
      }),
    },
  );
});
after(() => loops.close());

const requestsOf = (conversation: string) => loops.requestsOf(conversation);

const spec = (name: string, budget: string) => `name: ${name}
goal: |
  add() in math.js adds its arguments; the tests pass.
repo: ./repo
maker: { engine: builtin, model: "openai:mock-model" }
verifier: { engine: builtin, model: "anthropic:mock-model", args: ["--max-turns", "10"] }
gates:
  - { id: tests, kind: tests-pass, run: "node --test" }
budget: { ${budget} }
`;

const loop = (sandbox: Sandbox, name: string, budget = "maxIterations: 2") =>
  loops.run(sandbox, name, spec(name, budget));

describe("builtin engine, real loops", () => {
  it("fixes a failing test as maker; a read-only builtin verifier of another provider approves", async () => {
    const sandbox = await createSandbox(mathProject);
    try {
      const { run, summary } = await loop(sandbox, "bi-fix");
      assert.equal(run.code, 0, run.stdout + run.stderr);
      assert.match(
        run.stdout,
        /maker builtin openai:mock-model \(openai\); verifier builtin anthropic:mock-model \(anthropic\)/,
      );
      assert.match(run.stdout, /stopped: verified/);
      assert.equal(await sandbox.git("show", "loop/bi-fix:math.js"), fixedMath.trim());
      assert.deepEqual(
        requestsOf("bi-fix").map((request) => [request.protocol, request.turn]),
        [
          ["responses", 0],
          ["responses", 1],
          ["responses", 2],
          ["responses", 3],
        ],
      );
      assert.match(JSON.stringify(requestsOf("bi-fix")[3].body), /pass 1/, "the maker ran the tests");
      const cacheKeys = requestsOf("bi-fix").map(
        (request) => (request.body as Record<string, unknown>).prompt_cache_key,
      );
      assert.ok(
        typeof cacheKeys[0] === "string" && new Set(cacheKeys).size === 1,
        "one prompt-cache key per turn",
      );
      const verifier = requestsOf("verifier");
      assert.deepEqual(
        verifier.map((request) => request.protocol),
        ["anthropic", "anthropic"],
      );
      const seen = JSON.stringify(verifier[1].body);
      assert.match(seen, /math\.js \| 2 \+-/, "the verifier ran git without a shell");
      assert.match(seen, /There is no tool named \\"write\\"/, "the verifier cannot write");
      assert.ok(summary.iterations[0].costUsd > 0, "the maker's cost is recorded");
    } finally {
      await sandbox.cleanup();
    }
  });

  it("stops a maker whose model hangs when the wall clock passes", async () => {
    const sandbox = await createSandbox(mathProject);
    try {
      const { run, summary } = await loop(sandbox, "bi-hang", "maxIterations: 1, wallClockPerIteration: 2s");
      assert.equal(run.code, 3, run.stdout + run.stderr);
      assert.match(run.stdout, /maker timeout/);
      assert.equal(summary.stopReason, "budget_exhausted");
      assert.deepEqual(
        requestsOf("bi-hang").map((request) => request.outcome),
        ["answered", "hang"],
      );
    } finally {
      await sandbox.cleanup();
    }
  });
});

describe("builtin engine, a read-only turn", () => {
  it("reads the gate log beside the worktree but not the maker's transcript, runs no shell, answers in JSON", async () => {
    const probe = await createProbeFolders("loopwright-builtin-readonly-");
    try {
      const { cwd } = probe;
      await writeFile(join(probe.logs, "maker-transcript.jsonl"), '{"secret":"the maker said so"}\n');
      const events: string[] = [];
      const result = await createBuiltinEngine(
        { engine: "builtin", model: `openai-compatible:mock-model@${loops.model.url}/v1` },
        "verifier",
      ).runTurn(probeRequest(probe, { onEvent: (event) => events.push(event.type) }));
      assert.equal(result.status, "completed", result.error);
      assert.deepEqual(JSON.parse(result.output ?? ""), mathApproval);
      const seen = JSON.stringify(requestsOf("read-only")[1]?.body);
      assert.match(seen, /the gate log line/, "the gate log outside the worktree was readable");
      assert.doesNotMatch(seen, /the maker said so/, "the maker's transcript beside it was not");
      assert.match(seen, /There is no tool named \\"bash\\"/);
      assert.equal(existsSync(join(cwd, "bashed.txt")), false);
      assert.ok((result.costUsd ?? 0) > 0);
      assert.deepEqual([...new Set(events)].sort(), ["text", "tool", "usage"]);
      const transcript = await readFile(result.transcriptPath ?? "", "utf8");
      assert.match(transcript, /"type":"tool_ended","name":"read","ok":true/);
      assert.match(transcript, /"type":"turn_ended","endReason":"completed"/);
    } finally {
      await probe.cleanup();
    }
  });
});

describe("builtin engine, how a maker turn ends", () => {
  for (const [ending, maxCostUsd, status, detail] of [
    ["turn limit", 0, "completed", /Listing\.\n\[stopped at the turn limit: 1 model calls\]$/],
    ["outage", 0, "crashed", /HTTP 500.*scripted outage/],
    ["budget", 1, "over_budget", /^$/],
  ] as const) {
    it(`${ending}: ${status}`, async () => {
      const root = await realpath(await mkdtemp(join(tmpdir(), "loopwright-builtin-maker-")));
      try {
        const result = await createBuiltinEngine(
          { engine: "builtin", model: "anthropic:mock-model", args: ["--max-turns=1"] },
          "maker",
        ).runTurn({
          role: "maker",
          cwd: root,
          prompt: `ENDS: ${ending}`,
          readOnly: false,
          context: {},
          turnNumber: 1,
          wallClockMs: 60_000,
          maxCostUsd,
          turnDirectory: join(root, ".turn"),
          runId: "ending-run",
          stepId: "maker-1",
          env: loops.env,
          signal: new AbortController().signal,
        });
        assert.equal(result.status, status);
        assert.match(status === "crashed" ? (result.error ?? "") : result.text, detail);
        if (status === "over_budget") assert.ok((result.costUsd ?? 0) >= 2);
      } finally {
        await rm(root, { recursive: true, force: true });
      }
    });
  }
});
