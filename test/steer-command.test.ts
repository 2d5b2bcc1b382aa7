/**
 * `loopwright steer` end to end: what the user types reaches the running loop unchanged (durations are
 * parsed once), and a steer is never silently dropped by a stopped loop.
 */
import assert from "node:assert/strict";
import { existsSync } from "node:fs";
import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import { test } from "node:test";
import { createSandbox } from "./support/loop-sandbox.ts";
import { loopSummary, readTimeline } from "./support/loop-timeline.ts";
import { waitFor } from "./support/wait-for.ts";

const countingLoop = (name: string, maxIterations: number) => `name: ${name}
goal: |
  count.txt holds 2.
repo: ./repo
maker:
  engine: scripted
  turns:
    - write: { count.txt: "1\\n" }
    - write: { count.txt: "2\\n" }
gates: [{ id: count, kind: tests-pass, run: "grep -qx 2 count.txt" }]
budget: { maxIterations: ${maxIterations} }
`;

test("steer --add-gate with timeout: 2s applies a 2-second timeout, and the gate times out at 2 s", async () => {
  const sandbox = await createSandbox();
  try {
    const spec = await sandbox.spec(countingLoop("slow-gate", 1));
    const first = await sandbox.cli(["run", spec]);
    assert.equal(first.code, 3, first.stdout + first.stderr);
    const steer = await sandbox.cli([
      "steer",
      "slow-gate",
      "--add-gate",
      "{id: slow, kind: tests-pass, run: 'sleep 30', timeout: 2s}",
      "--budget",
      "maxIterations=2",
      "--budget",
      "wallClockPerIteration=30m",
    ]);
    assert.equal(steer.code, 0, steer.stderr);
    const started = Date.now();
    const resumed = await sandbox.cli(["resume", "slow-gate"]);
    assert.ok(Date.now() - started < 60_000, "the steered gate did not wait 30 s");
    assert.match(resumed.stdout, /slow .*timed out/);
    const applied = readTimeline(sandbox)
      .filter((event) => event.type === "steering_applied")
      .map((event) => JSON.parse(event.data));
    assert.equal(applied.length, 1);
    const spec2 = applied[0].spec;
    assert.equal(spec2.gates.find((gate: { id: string }) => gate.id === "slow").timeout, 2000);
    assert.equal(spec2.budget.wallClockPerIteration, 1_800_000);
    const results = readTimeline(sandbox)
      .filter((event) => event.type === "gate_ended")
      .map((event) => JSON.parse(event.data).result)
      .filter((result) => result.id === "slow");
    assert.ok(results.length >= 2, "the new gate ran on the base commit and in iteration 2");
    for (const result of results) {
      assert.equal(result.timedOut, true);
      assert.ok(result.durationMs < 10_000, `the gate ran ${result.durationMs} ms, not about 2 s`);
    }
  } finally {
    await sandbox.cleanup();
  }
});

test("steer --add-gate on a paused loop: the 2s timeout reaches the gate, which times out at 2 s", async () => {
  const sandbox = await createSandbox();
  try {
    const release = join(sandbox.root, "gate-may-finish");
    const spec = await sandbox.spec(`name: paused-steer
goal: count.txt holds 2.
repo: ./repo
maker:
  engine: scripted
  turns:
    - write: { count.txt: "1\\n" }
    - write: { count.txt: "2\\n" }
gates: [{ id: count, kind: tests-pass, run: "if grep -q . count.txt 2>/dev/null; then while [ ! -e ${release} ]; do sleep 0.05; done; fi; grep -qx 2 count.txt" }]
`);
    const run = sandbox.spawnCli(["run", spec]);
    await waitFor(
      async () => (await sandbox.cli(["show", "paused-steer", "--json"])).stdout.includes('"iteration": 1'),
      "iteration 1",
    );
    assert.equal((await sandbox.cli(["pause", "paused-steer"])).code, 0);
    await writeFile(release, "");
    const paused = await run.done;
    assert.equal(paused.code, 75, paused.stdout + paused.stderr);
    const steer = await sandbox.cli([
      "steer",
      "paused-steer",
      "--add-gate",
      "{id: slow, kind: tests-pass, run: 'sleep 30', timeout: 2s, required: false}",
    ]);
    assert.equal(steer.code, 0, steer.stderr);
    const resumed = await sandbox.cli(["resume", "paused-steer"]);
    assert.equal(resumed.code, 0, resumed.stdout + resumed.stderr);
    assert.match(resumed.stdout, /✗ slow .*timed out after 2\.0s/);
    const applied = readTimeline(sandbox).find((event) => event.type === "steering_applied");
    const gates = JSON.parse(applied?.data ?? "{}").spec.gates as { id: string; timeout: number }[];
    assert.equal(gates.find((gate) => gate.id === "slow")?.timeout, 2000);
    const runs = readTimeline(sandbox)
      .filter((event) => event.type === "gate_ended")
      .map((event) => JSON.parse(event.data).result)
      .filter((result) => result.id === "slow");
    assert.ok(runs.length >= 2, "the new gate ran on the base commit and in iteration 2");
    for (const result of runs) {
      assert.equal(result.timedOut, true);
      assert.ok(result.durationMs < 10_000, `the gate ran ${result.durationMs} ms, not about 2 s`);
    }
  } finally {
    await sandbox.cleanup();
  }
});

test("steer --add-gate with the default timeout applies 10 minutes, and 30s means 30 seconds", async () => {
  const sandbox = await createSandbox();
  try {
    const spec = await sandbox.spec(countingLoop("default-timeout", 1));
    assert.equal((await sandbox.cli(["run", spec])).code, 3);
    const steer = await sandbox.cli([
      "steer",
      "default-timeout",
      "--add-gate",
      "{id: quick, kind: tests-pass, run: 'true'}",
      "--add-gate",
      "{id: thirty, kind: tests-pass, run: 'true', timeout: 30s}",
      "--add-gate",
      "{id: seconds, kind: tests-pass, run: 'true', timeout: 45}",
    ]);
    assert.equal(steer.code, 0, steer.stderr);
    await sandbox.cli(["resume", "default-timeout"]);
    const applied = readTimeline(sandbox).find((event) => event.type === "steering_applied");
    const gates = JSON.parse(applied?.data ?? "{}").spec.gates as { id: string; timeout: number }[];
    const timeout = (id: string) => gates.find((gate) => gate.id === id)?.timeout;
    assert.equal(timeout("quick"), 600_000);
    assert.equal(timeout("thirty"), 30_000);
    assert.equal(timeout("seconds"), 45_000);
  } finally {
    await sandbox.cleanup();
  }
});

test("steer on a stopped loop says it applies on resume, warns of a spent budget, and resume applies it", async () => {
  const sandbox = await createSandbox();
  try {
    const spec = await sandbox.spec(countingLoop("stopped", 1));
    assert.equal((await sandbox.cli(["run", spec])).code, 3);
    const steer = await sandbox.cli(["steer", "stopped", "--goal", "count.txt holds 2, for real."]);
    assert.equal(steer.code, 0, steer.stderr);
    assert.match(
      steer.stdout,
      /\(stopped: budget_exhausted\): applied when it resumes \(loopwright resume stopped\)/,
    );
    assert.match(steer.stdout, /warning: the iteration budget is spent \(1 of 1\).*--budget maxIterations=2/);
    const raise = await sandbox.cli(["steer", "stopped", "--budget", "maxIterations=2"]);
    assert.equal(raise.code, 0, raise.stderr);
    assert.doesNotMatch(raise.stdout, /warning/);
    const resumed = await sandbox.cli(["resume", "stopped"]);
    assert.equal(resumed.code, 0, resumed.stdout + resumed.stderr);
    assert.match(resumed.stdout, /steering applied: goal, budget.maxIterations/);
    const summary = await loopSummary(sandbox, "stopped");
    assert.equal(summary.stopReason, "verified");
    const brief = await sandbox.cli(["brief", "stopped", "--iteration", "2"]);
    assert.match(brief.stdout, /## Goal\ncount.txt holds 2, for real./);
  } finally {
    await sandbox.cleanup();
  }
});

test("steer on a verified loop is refused with a clear message; resume still says it is verified", async () => {
  const sandbox = await createSandbox();
  try {
    const spec = await sandbox.spec(countingLoop("done", 3));
    assert.equal((await sandbox.cli(["run", spec])).code, 0);
    const steer = await sandbox.cli(["steer", "done", "--goal", "count.txt holds 3."]);
    assert.equal(steer.code, 2, steer.stdout);
    assert.equal(steer.stderr.trim().split("\n").length, 1, steer.stderr);
    assert.match(steer.stderr, /loop done is verified.*new loop/);
    assert.equal(readTimeline(sandbox).filter((event) => event.type === "steer_requested").length, 0);
  } finally {
    await sandbox.cleanup();
  }
});

test("a steer filed during the iteration that verifies is not dropped silently: run and show say it was not applied", async () => {
  const sandbox = await createSandbox();
  try {
    const started = join(sandbox.root, "maker-started");
    const go = join(sandbox.root, "go");
    const spec = await sandbox.spec(`name: raced
goal: count.txt holds 2.
repo: ./repo
maker: { engine: command, run: "touch ${started}; while [ ! -e ${go} ]; do sleep 0.05; done; echo 2 > count.txt" }
verifier: { engine: scripted, turns: [{ verdict: auto }] }
gates: [{ id: count, kind: tests-pass, run: "grep -qx 2 count.txt" }]
`);
    const run = sandbox.spawnCli(["run", spec]);
    await waitFor(() => existsSync(started), "the maker to start");
    const steer = await sandbox.cli(["steer", "raced", "--goal", "count.txt holds 3."]);
    assert.equal(steer.code, 0, steer.stderr);
    assert.match(steer.stdout, /applied at the next iteration boundary/);
    await writeFile(go, "");
    const result = await run.done;
    assert.equal(result.code, 0, result.stdout + result.stderr);
    assert.match(
      result.stdout,
      /1 steering request was not applied: the loop was verified before the next iteration boundary; start a new loop for a new goal/,
    );
    const show = await sandbox.cli(["show", "raced"]);
    assert.match(show.stdout, /1 steering request was not applied: the loop was verified/);
    const resumed = await sandbox.cli(["resume", "raced"]);
    assert.equal(resumed.code, 0, resumed.stderr);
    assert.match(
      resumed.stdout,
      /loop raced is verified: nothing to resume\nnote: 1 steering request was not applied/,
    );
  } finally {
    await sandbox.cleanup();
  }
});
