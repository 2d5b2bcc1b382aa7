/**
 * The per-iteration cap through a real agent CLI: a Claude Code verifier gets only what the maker left
 * of `maxCostUsdPerIteration`, both as its own `--max-budget-usd` and as loopwright's live watchdog.
 * The real `loopwright` binary and the real `claude` CLI against the mock-model server.
 */
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { type EngineLoops, startEngineLoops } from "./support/engine-loops.ts";
import { fixedMath, mathApproval, mathProject } from "./support/failing-projects.ts";
import { createSandbox } from "./support/loop-sandbox.ts";

let loops: EngineLoops;
before(async () => {
  loops = await startEngineLoops({
    conversations: [
      {
        name: "capped-verifier",
        when: { contains: "CAPPED-VERIFIER" },
        turns: [
          // 1,000 input and 40,000 output tokens of claude-sonnet-4-6: $0.603.
          {
            tools: [{ name: "Read", input: { file_path: "{{cwd}}/math.js" } }],
            usage: { input: 1000, output: 40_000 },
          },
          { json: mathApproval },
        ],
      },
    ],
  });
});
after(async () => {
  await loops?.close();
});

describe("the per-iteration cap with a real CLI", () => {
  it("a claude-code verifier with $0.40 left of a $1 cap is stopped at its first expensive answer", async () => {
    const sandbox = await createSandbox(mathProject);
    // Under `node --test` this variable would make the gate's own `node --test` skip every file and pass.
    delete sandbox.env.NODE_TEST_CONTEXT;
    try {
      const { run, summary, events, output } = await loops.run(
        sandbox,
        "capped",
        `name: capped
goal: "CAPPED-VERIFIER: add() returns the sum; node --test passes"
repo: ./repo
maker: { engine: scripted, turns: [{ write: { math.js: ${JSON.stringify(fixedMath)} }, costUsd: 0.6 }] }
verifier: { engine: claude-code, model: claude-sonnet-4-6 }
gates: [{ id: tests, kind: tests-pass, run: "node --test", timeout: 30s }]
budget: { maxIterations: 2, maxCostUsdPerIteration: 1 }
`,
        { json: true, timeoutMs: 120_000 },
      );
      assert.equal(run.code, 3, output);
      const verifierEnded = events.find((event) => event.type === "verifier_ended");
      assert.equal(verifierEnded?.data.status, "over_budget", output);
      assert.equal(summary.iterations[0].outcome, "over_budget");
      assert.deepEqual(
        loops.requestsOf("capped-verifier").map((request) => request.turn),
        [0],
        "the verifier was stopped before its next model request",
      );
    } finally {
      await sandbox.cleanup();
    }
  });
});
