/**
 * `maxCostUsdPerIteration` caps the iteration: the maker, the verifier, its corrective retry and the
 * replanner share it. Real loops through the real `loopwright` binary, with scripted turns that say what
 * they cost; the timeline shows what each turn spent and that no iteration spent more than its cap.
 */
import assert from "node:assert/strict";
import { existsSync } from "node:fs";
import { join } from "node:path";
import { describe, test } from "node:test";
import { iterationSpentUsd, nextTurnCap } from "../src/loop/iteration-spending.ts";
import { createSandbox, type Sandbox } from "./support/loop-sandbox.ts";
import { readTimeline } from "./support/loop-timeline.ts";

async function runLoop(sandbox: Sandbox, spec: string) {
  const path = await sandbox.spec(spec);
  const run = await sandbox.cli(["run", path]);
  const events = readTimeline(sandbox).map((event) => ({
    type: event.type,
    data: JSON.parse(event.data) as Record<string, unknown>,
  }));
  const of = (type: string) => events.filter((event) => event.type === type).map((event) => event.data);
  return { run, of };
}

/** Dollars each iteration's turns spent, by iteration number. */
function spentByIteration(of: (type: string) => Record<string, unknown>[]): Map<number, number> {
  const spent = new Map<number, number>();
  for (const type of ["maker_ended", "verifier_ended", "replan_ended"])
    for (const data of of(type)) {
      const iteration = Number(data.iteration);
      spent.set(iteration, (spent.get(iteration) ?? 0) + Number(data.costUsd ?? 0));
    }
  return spent;
}

describe("the per-iteration cost cap", () => {
  test("the verifier gets what the maker left: $3 + $3 against a $5 cap ends over budget", async () => {
    const sandbox = await createSandbox();
    try {
      const { run, of } = await runLoop(
        sandbox,
        `name: shared-cap
goal: count.txt holds 1
repo: ./repo
maker: { engine: scripted, turns: [{ write: { count.txt: "1\\n" }, costUsd: 3 }] }
verifier: { engine: scripted, turns: [{ verdict: auto, costUsd: 3 }] }
gates: [{ id: count, kind: tests-pass, run: "grep -qx 1 count.txt" }]
budget: { maxIterations: 3, maxCostUsdPerIteration: 5 }
`,
      );
      assert.equal(run.code, 3, run.stdout + run.stderr);
      assert.match(run.stdout, /stopped: budget_exhausted/);
      assert.equal(of("verifier_ended")[0]?.status, "over_budget");
      assert.equal(of("iteration_ended")[0]?.outcome, "over_budget");
      assert.equal(of("iteration_ended").length, 1, "the loop stopped after the iteration that hit the cap");
    } finally {
      await sandbox.cleanup();
    }
  });

  test("a verifier with nothing left does not start", async () => {
    const sandbox = await createSandbox();
    try {
      const marker = join(sandbox.root, "verifier-ran");
      const { run, of } = await runLoop(
        sandbox,
        `name: spent-cap
goal: count.txt holds 1
repo: ./repo
maker: { engine: scripted, turns: [{ write: { count.txt: "1\\n" }, costUsd: 5 }] }
verifier: { engine: scripted, turns: [{ run: ["touch ${marker}"], verdict: auto, costUsd: 0.01 }] }
gates: [{ id: count, kind: tests-pass, run: "grep -qx 1 count.txt" }]
budget: { maxIterations: 3, maxCostUsdPerIteration: 5 }
`,
      );
      assert.equal(run.code, 3, run.stdout + run.stderr);
      assert.equal(existsSync(marker), false, "the verifier ran with no budget left");
      const ended = of("verifier_ended")[0];
      assert.equal(ended?.status, "over_budget");
      assert.match(
        String(ended?.error),
        /\$5 cost cap was spent \(\$5\.00\) before the verifier could start/,
      );
      assert.equal(of("iteration_ended")[0]?.outcome, "over_budget");
      assert.equal(
        of("iteration_ended")[0]?.summary,
        "the iteration's $5 cost cap ran out in the verifier's turn",
      );
    } finally {
      await sandbox.cleanup();
    }
  });

  test("the corrective retry gets what the maker and the first verdict left", async () => {
    const sandbox = await createSandbox();
    try {
      const { run, of } = await runLoop(
        sandbox,
        `name: retry-cap
goal: count.txt holds 1
repo: ./repo
maker: { engine: scripted, turns: [{ write: { count.txt: "1\\n" }, costUsd: 2 }] }
verifier:
  engine: scripted
  turns:
    - { print: "not a verdict", costUsd: 2 }
    - { verdict: auto, costUsd: 2 }
gates: [{ id: count, kind: tests-pass, run: "grep -qx 1 count.txt" }]
budget: { maxIterations: 3, maxCostUsdPerIteration: 5 }
`,
      );
      assert.equal(run.code, 3, run.stdout + run.stderr);
      assert.equal(of("verdict_rejected").length, 1);
      assert.equal(of("verifier_ended")[0]?.status, "over_budget");
      assert.equal(of("iteration_ended")[0]?.outcome, "over_budget");
    } finally {
      await sandbox.cleanup();
    }
  });

  const replanSpec = (name: string, thirdCost: number) => `name: ${name}
goal: count.txt holds 2
repo: ./repo
maker:
  engine: scripted
  turns:
    - { write: { a.txt: "1\\n" }, costUsd: 2, replan: { approach: "write 2", hypotheses: [] } }
    - { delete: [a.txt], costUsd: 1 }
    - { write: { a.txt: "1\\n" }, costUsd: ${thirdCost} }
    - { write: { count.txt: "2\\n" }, costUsd: 1 }
verifier: { engine: scripted, turns: [{ verdict: auto }] }
gates: [{ id: count, kind: tests-pass, run: "grep -qx 2 count.txt" }]
budget: { maxIterations: 4, maxCostUsdPerIteration: 5 }
`;

  // Iterations 1 and 3 make the same change and fail the same gate: a repeat, so a replan follows
  // iteration 3. The replanner (the maker's engine, playing its first turn) costs $2.
  test("the replanner spends from the iteration it follows: $4 spent leaves it $1", async () => {
    const sandbox = await createSandbox();
    try {
      const { run, of } = await runLoop(sandbox, replanSpec("replan-cap", 4));
      const replan = of("replan_ended")[0];
      assert.equal(replan?.iteration, 3, run.stdout);
      assert.equal(replan?.status, "failed", "the replanner was stopped at the iteration's cap");
      assert.match(String(replan?.error), /over_budget/);
      assert.equal(spentByIteration(of).get(3), 6, "the maker's $4 and the stopped replanner's $2");
    } finally {
      await sandbox.cleanup();
    }
  });

  test("a replanner with nothing left does not run, and the loop goes on", async () => {
    const sandbox = await createSandbox();
    try {
      const { run, of } = await runLoop(sandbox, replanSpec("replan-spent", 5));
      const replan = of("replan_ended")[0];
      assert.equal(replan?.status, "failed", run.stdout);
      assert.match(
        String(replan?.error),
        /\$5 cost cap was spent \(\$5\.00\) before the replanner could start/,
      );
      assert.equal(replan?.costUsd, 0);
      assert.equal(of("iteration_ended").at(-1)?.outcome, "verified", "iteration 4 has its own cap");
      assert.equal(run.code, 0, run.stdout + run.stderr);
    } finally {
      await sandbox.cleanup();
    }
  });
});

describe("what a turn may spend (pure)", () => {
  const ended = (type: string, iteration: number, costUsd?: number) => ({
    type,
    data: { iteration, costUsd },
  });

  test("an iteration's spending counts its maker, verifier and replanner, not other iterations'", () => {
    const events = [
      ended("maker_ended", 1, 2),
      ended("verifier_ended", 1, 1.5),
      ended("replan_ended", 1, 0.5),
      ended("maker_ended", 2, 7),
      ended("maker_ended", 1, undefined),
      { type: "gate_ended", data: { iteration: 1, costUsd: 9 } },
    ];
    assert.equal(iterationSpentUsd(events, 1), 4);
    assert.equal(iterationSpentUsd(events, 2), 7);
    assert.equal(iterationSpentUsd(events, 3), 0);
  });

  test("the next turn gets the rest of the cap; none left means it does not start; 0 means no cap", () => {
    assert.deepEqual(nextTurnCap(5, 3, "verifier"), { exhausted: false, maxCostUsd: 2 });
    assert.deepEqual(nextTurnCap(0, 300, "verifier"), { exhausted: false, maxCostUsd: 0 });
    const spent = nextTurnCap(5, 5.2, "maker");
    assert.equal(spent.exhausted, true);
    assert.match(spent.exhausted ? spent.message : "", /before the maker could start/);
  });
});
