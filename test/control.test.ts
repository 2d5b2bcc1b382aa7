import assert from "node:assert/strict";
import { existsSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import { createSandbox } from "./support/loop-sandbox.ts";
import { loopSummary, readTimeline } from "./support/loop-timeline.ts";
import { waitFor } from "./support/wait-for.ts";

test("cancel kills the running maker turn, commits its work, and stops with user_cancelled (exit 130)", async () => {
  const sandbox = await createSandbox();
  try {
    const marker = join(sandbox.root, "maker-started");
    const spec = await sandbox.spec(`name: slow
goal: never finishes
repo: ./repo
maker: { engine: command, run: "echo partial > work.txt; touch ${marker}; sleep 60" }
verifier: { engine: scripted, turns: [{ verdict: auto }] }
gates: [{ id: t, kind: tests-pass, run: "true" }]
`);
    const run = sandbox.spawnCli(["run", spec]);
    await waitFor(() => existsSync(marker), "the maker to start");
    const cancelled = Date.now();
    const cancel = await sandbox.cli(["cancel", "slow"]);
    assert.equal(cancel.code, 0, cancel.stderr);
    const result = await run.done;
    assert.ok(Date.now() - cancelled < 10_000, "the run ended");
    assert.equal(result.code, 130, result.stdout + result.stderr);
    assert.match(result.stdout, /stopped: user_cancelled/);
    assert.equal(await sandbox.git("show", "loop/slow:work.txt"), "partial");
    const summary = await loopSummary(sandbox, "slow");
    assert.equal(summary.stopReason, "user_cancelled");
    assert.equal(summary.iterations[0].outcome, "cancelled");
    const timeline = readTimeline(sandbox);
    const requested = timeline.find((event) => event.type === "cancel_requested");
    const makerEnded = timeline.find((event) => event.type === "maker_ended");
    assert.equal(JSON.parse(makerEnded?.data ?? "{}").status, "cancelled");
    const reaction = Date.parse(makerEnded?.at ?? "") - Date.parse(requested?.at ?? "");
    assert.ok(
      reaction < 2000,
      `the turn was killed ${reaction} ms after the cancel request (promise: within 2 s)`,
    );
  } finally {
    await sandbox.cleanup();
  }
});

test("Ctrl-C (SIGINT) of a foreground run cancels it cleanly", async () => {
  const sandbox = await createSandbox();
  try {
    const marker = join(sandbox.root, "maker-started");
    const spec = await sandbox.spec(`name: interrupted
goal: never finishes
repo: ./repo
maker: { engine: command, run: "touch ${marker}; sleep 60" }
verifier: { engine: scripted, turns: [{ verdict: auto }] }
gates: [{ id: t, kind: tests-pass, run: "true" }]
`);
    const run = sandbox.spawnCli(["run", spec]);
    await waitFor(() => existsSync(marker), "the maker to start");
    run.kill("SIGINT");
    const result = await run.done;
    assert.equal(result.code, 130, result.stdout + result.stderr);
    assert.equal((await loopSummary(sandbox, "interrupted")).stopReason, "user_cancelled");
  } finally {
    await sandbox.cleanup();
  }
});

test("pause lets the iteration finish, run exits 75, resume continues to the end", async () => {
  const sandbox = await createSandbox();
  try {
    const gate = join(sandbox.root, "gate-may-finish");
    const spec = await sandbox.spec(`name: pausable
goal: count reaches 2
repo: ./repo
maker:
  engine: scripted
  turns:
    - write: { count.txt: "1\\n" }
    - write: { count.txt: "2\\n" }
gates: [{ id: count, kind: tests-pass, run: "if [ -f count.txt ]; then while [ ! -e ${gate} ]; do sleep 0.05; done; fi; grep -qx 2 count.txt" }]
`);
    const run = sandbox.spawnCli(["run", spec]);
    await waitFor(
      async () => (await sandbox.cli(["show", "pausable", "--json"])).stdout.includes('"iteration": 1'),
      "iteration 1",
    );
    const pause = await sandbox.cli(["pause", "pausable"]);
    assert.equal(pause.code, 0, pause.stderr);
    await (await import("node:fs/promises")).writeFile(gate, "");
    const result = await run.done;
    assert.equal(result.code, 75, result.stdout + result.stderr);
    let summary = await loopSummary(sandbox, "pausable");
    assert.equal(summary.status, "paused");
    assert.equal(summary.iterations.length, 1, "the paused loop did not start another iteration");
    const resumed = await sandbox.cli(["resume", "pausable"]);
    assert.equal(resumed.code, 0, resumed.stdout + resumed.stderr);
    summary = await loopSummary(sandbox, "pausable");
    assert.equal(summary.stopReason, "verified");
    assert.equal(summary.iterations.length, 2);
  } finally {
    await sandbox.cleanup();
  }
});

test("steering: a budget_exhausted loop continues after steer --budget; the next brief quotes old and new values", async () => {
  const sandbox = await createSandbox();
  try {
    const spec = await sandbox.spec(`name: steered
goal: |
  count.txt holds 3.
repo: ./repo
maker:
  engine: scripted
  turns:
    - write: { count.txt: "1\\n" }
    - write: { count.txt: "2\\n" }
    - write: { count.txt: "3\\n" }
gates: [{ id: count, kind: tests-pass, run: "grep -qx 3 count.txt" }]
budget: { maxIterations: 1 }
`);
    const first = await sandbox.cli(["run", spec]);
    assert.equal(first.code, 3, first.stdout + first.stderr);

    const refused = await sandbox.cli(["steer", "steered", "--remove-gate", "verifier-approves"]);
    assert.equal(refused.code, 2);
    assert.match(refused.stderr, /verifier/);

    const steer = await sandbox.cli([
      "steer",
      "steered",
      "--budget",
      "maxIterations=3",
      "--goal",
      "count.txt holds 3, really.",
    ]);
    assert.equal(steer.code, 0, steer.stderr);
    const resumed = await sandbox.cli(["resume", "steered"]);
    assert.equal(resumed.code, 0, resumed.stdout + resumed.stderr);
    const brief = await sandbox.cli(["brief", "steered", "--iteration", "2"]);
    assert.match(brief.stdout, /budget\.maxIterations: was 1, now 3/);
    assert.match(brief.stdout, /goal: was "count.txt holds 3.", now "count.txt holds 3, really."/);
    assert.match(brief.stdout, /## Goal\ncount.txt holds 3, really./);
    const third = await sandbox.cli(["brief", "steered", "--iteration", "3"]);
    assert.doesNotMatch(third.stdout, /Steering since the last iteration/);
    const summary = await loopSummary(sandbox, "steered");
    assert.equal(summary.stopReason, "verified");
    assert.equal(summary.iterations.length, 3);
  } finally {
    await sandbox.cleanup();
  }
});

test("ls lists the repository's loops and rm removes one (its branch only with --branch)", async () => {
  const sandbox = await createSandbox();
  try {
    const spec = await sandbox.spec(`name: tidy
goal: done.txt exists
repo: ./repo
maker: { engine: scripted, turns: [{ write: { done.txt: "yes\\n" } }] }
gates: [{ id: done, kind: tests-pass, run: "test -f done.txt" }]
`);
    assert.equal((await sandbox.cli(["run", spec])).code, 0);
    const listed = await sandbox.cli(["ls", "--json"]);
    const rows = JSON.parse(listed.stdout);
    assert.equal(rows.length, 1);
    assert.equal(rows[0].name, "tidy");
    assert.equal(rows[0].stopReason, "verified");
    const again = await sandbox.cli(["run", spec]);
    assert.equal(again.code, 2);
    assert.match(again.stderr, /already exists/);
    assert.equal((await sandbox.cli(["rm", "tidy"])).code, 0);
    assert.equal(await sandbox.git("branch", "--list", "loop/tidy"), "loop/tidy");
    assert.deepEqual(JSON.parse((await sandbox.cli(["ls", "--json"])).stdout), []);
    assert.equal(
      existsSync(join(sandbox.home, "loops"))
        ? (await import("node:fs")).readdirSync(join(sandbox.home, "loops")).length
        : 0,
      0,
    );
  } finally {
    await sandbox.cleanup();
  }
});

test("the daily cost cap parks the loop until UTC midnight, and it goes on by itself", async () => {
  const sandbox = await createSandbox();
  try {
    const spec = await sandbox.spec(`name: thrifty
goal: count.txt holds 2
repo: ./repo
maker:
  engine: scripted
  turns:
    - { write: { count.txt: "1\\n" }, costUsd: 3 }
    - { write: { count.txt: "2\\n" }, costUsd: 3 }
gates: [{ id: count, kind: tests-pass, run: "grep -qx 2 count.txt" }]
budget: { maxIterations: 3, maxCostUsdPerIteration: 5, maxCostUsdPerDay: 2 }
`);
    // Stand the controller's clock 10 s before the next UTC midnight: the first iteration (baseline,
    // maker, gates, recheck) must end before it, even on a loaded machine.
    const now = Date.now();
    const midnight = Date.UTC(
      new Date(now).getUTCFullYear(),
      new Date(now).getUTCMonth(),
      new Date(now).getUTCDate() + 1,
    );
    const skew = midnight - 10_000 - now;
    const run = await sandbox.cli(["run", spec], { env: { LOOPWRIGHT_TEST_CLOCK_SKEW_MS: String(skew) } });
    assert.equal(run.code, 0, run.stdout + run.stderr);
    assert.match(run.stdout, /parked until .* UTC: \$3\.00 spent today of the \$2 daily cap; waiting/);
    assert.match(run.stdout, /a new UTC day: going on/);
    const timeline = readTimeline(sandbox).map((event) => event.type);
    assert.ok(timeline.indexOf("loop_parked") > timeline.indexOf("iteration_ended"));
    assert.ok(timeline.indexOf("loop_unparked") > timeline.indexOf("loop_parked"));
    assert.equal((await loopSummary(sandbox, "thrifty")).iterations.length, 2);
  } finally {
    await sandbox.cleanup();
  }
});

test("a parked loop shows as parked and can be cancelled", async () => {
  const sandbox = await createSandbox();
  try {
    const spec = await sandbox.spec(`name: parked
goal: count.txt holds 2
repo: ./repo
maker: { engine: scripted, turns: [{ write: { count.txt: "1\\n" }, costUsd: 3 }] }
gates: [{ id: count, kind: tests-pass, run: "grep -qx 2 count.txt" }]
budget: { maxCostUsdPerIteration: 5, maxCostUsdPerDay: 2 }
`);
    const run = sandbox.spawnCli(["run", spec]);
    await waitFor(async () => {
      const listed = await sandbox.cli(["ls", "--json"]);
      return listed.stdout.includes('"status": "parked"');
    }, "the loop to park");
    assert.equal((await sandbox.cli(["cancel", "parked"])).code, 0);
    const result = await run.done;
    assert.equal(result.code, 130, result.stdout + result.stderr);
  } finally {
    await sandbox.cleanup();
  }
});
