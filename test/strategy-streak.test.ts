/**
 * `strategy: streak` end to end: the real CLI, real git, real `node --test` suites. The "race" is a
 * shared counter file (outside the repository) that decides which run loses it, so the flake fails
 * every third run, deterministically: base run 2 fails, iteration 1's wrong fix fails its second run,
 * iteration 2's fix removes the shared state and passes three runs in a row.
 */
import assert from "node:assert/strict";
import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { test } from "node:test";
import { createSandbox, type Sandbox } from "./support/loop-sandbox.ts";
import { eventsIn, type StreamedEvent } from "./support/loop-timeline.ts";

const racyTotal = `import { readFileSync, writeFileSync } from "node:fs";

/** Who writes last decides the total: every third caller loses the race. */
export function total() {
  const file = process.env.RACE_FILE;
  let count = 0;
  try {
    count = Number(readFileSync(file, "utf8")) || 0;
  } catch {}
  writeFileSync(file, String(count + 1));
  return (count + 1) % 3 === 2 ? 41 : 42;
}
`;

const project = {
  "package.json": '{ "type": "module" }\n',
  "src/total.js": racyTotal,
  "test/total.test.js": `import assert from "node:assert/strict";
import { test } from "node:test";
import { total } from "../src/total.js";

test("racy total", () => {
  assert.equal(total(), 42);
});

test("steady sum", () => {
  assert.equal(1 + 1, 2);
});
`,
};

const racySpec = `name: racy
goal: The suite passes every time.
repo: ./repo
strategy: { kind: streak, passes: 3, maxRuns: 12 }
maker:
  engine: scripted
  turns:
    - say: "wrong fix: tidied the counter's comment"
      write:
        src/total.js: ${JSON.stringify(racyTotal.replace("every third caller loses the race", "the last writer wins"))}
    - say: "fix: total no longer reads shared state"
      write: { src/total.js: "export function total() {\\n  return 42;\\n}\\n" }
verifier: { engine: scripted, turns: [{ verdict: auto }] }
gates:
  - { id: suite, kind: tests-pass, run: "node --test" }
budget: { maxIterations: 4 }
`;

async function racySandbox(): Promise<{ sandbox: Sandbox; env: NodeJS.ProcessEnv; spec: string }> {
  const sandbox = await createSandbox(project);
  const env = { RACE_FILE: join(sandbox.root, "race-count") };
  return { sandbox, env, spec: await sandbox.spec(racySpec) };
}

/** `iteration:phase:passed` of every gate run, in order. */
function gateRuns(events: StreamedEvent[]): string[] {
  return events
    .filter((event) => event.type === "gate_ended")
    .map((event) => {
      const result = event.data.result as { phase: string; passed: boolean };
      return `${event.data.iteration}:${result.phase}:${result.passed ? "pass" : "FAIL"}`;
    });
}

test("a racy suite fixed by the maker at iteration 2 reaches a streak of 3; the report says what that proves", {
  timeout: 180_000,
}, async () => {
  const { sandbox, env, spec } = await racySandbox();
  try {
    const run = await sandbox.cli(["run", spec, "--json"], { env });
    assert.equal(run.code, 0, run.stderr);
    const events = eventsIn(run.stdout);
    assert.deepEqual(gateRuns(events), [
      "0:baseline:pass",
      "0:confirm:FAIL",
      "0:recheck:pass",
      "1:grade:pass",
      "1:confirm:FAIL",
      "1:recheck:pass",
      "2:grade:pass",
      "2:confirm:pass",
      "2:confirm-2:pass",
    ]);
    const rechecks = events
      .filter((event) => event.type === "gate_ended")
      .map((event) => event.data.result as { phase: string; command: string; rerunOnly?: string[] })
      .filter((result) => result.phase === "recheck");
    for (const recheck of rechecks) {
      assert.deepEqual(recheck.rerunOnly, ["racy total"], "only the failing test reruns");
      assert.match(recheck.command, /--test-name-pattern='\^racy total\$' 'test\/total\.test\.js'$/);
    }
    const ended = events
      .filter((event) => event.type === "iteration_ended")
      .map((event) => `${event.data.iteration}:${event.data.outcome}`);
    assert.deepEqual(ended, ["1:failed", "2:verified"]);
    const stop = events.findLast((event) => event.type === "loop_stopped");
    assert.equal(stop?.data.reason, "verified");
    assert.match(
      String(stop?.data.message),
      /^3 consecutive full-suite passes on [0-9a-f]{10} at iteration 2 \(7 full runs, 2 red\)$/,
    );
    assert.equal(
      await sandbox.git("show", "loop/racy:src/total.js"),
      "export function total() {\n  return 42;\n}",
    );

    // The maker got the digest of the base commit's red run, not its log.
    const started = events.filter((event) => event.type === "iteration_started");
    const firstBrief = String(started[0].data.brief);
    assert.match(firstBrief, /## Streak: the suite must pass 3 times in a row/);
    assert.match(firstBrief, /Gate suite failed on the base commit \(confirm run/);
    assert.match(firstBrief, /racy total/);
    assert.match(firstBrief, /41/, "the digest quotes the assertion");
    assert.doesNotMatch(firstBrief, /steady sum/, "a passing test's lines from the log are not in the brief");
    assert.match(String(started[1].data.brief), /suite › racy total: failed 2 of 4 runs/);

    const report = await sandbox.cli(["report", "racy"]);
    assert.equal(report.code, 0, report.stderr);
    assert.match(report.stdout, /7 full runs of the suite, 2 red/);
    assert.match(report.stdout, /ended with 3 consecutive passes \(3 asked\)/);
    assert.match(
      report.stdout,
      /0 failures in 3 runs bounds that commit's failure rate below 63\.2% at 95% confidence/,
    );
    assert.match(
      report.stdout,
      /\| suite › racy total \| 2 \| 7 \| 29% \| base, #1 \| iteration 2: fix: total no longer reads shared state \|/,
    );
    // The full logs stay on disk, one per run.
    const logPaths = events
      .filter((event) => event.type === "gate_ended")
      .map((event) => (event.data.result as { logPath: string }).logPath);
    assert.equal(new Set(logPaths).size, 9);
    assert.match(await readFile(logPaths[1], "utf8"), /steady sum/);
  } finally {
    await sandbox.cleanup();
  }
});

test("a suite that never fails: passes runs on the base commit, nothing changed, said stable", {
  timeout: 120_000,
}, async () => {
  const sandbox = await createSandbox({
    ...project,
    "src/total.js": "export function total() {\n  return 42;\n}\n",
  });
  try {
    const spec = await sandbox.spec(racySpec.replace("name: racy", "name: steady"));
    const run = await sandbox.cli(["run", spec, "--json"]);
    assert.equal(run.code, 0, run.stderr);
    const events = eventsIn(run.stdout);
    assert.deepEqual(gateRuns(events), ["0:baseline:pass", "0:confirm:pass", "0:confirm-2:pass"]);
    const stop = events.findLast((event) => event.type === "loop_stopped");
    assert.equal(stop?.data.reason, "verified");
    assert.match(
      String(stop?.data.message),
      /the suite was stable: 3 of 3 full runs passed on the base commit/,
    );
    assert.equal(events.filter((event) => event.type === "iteration_started").length, 0, "no maker turn");
    assert.equal(events.filter((event) => event.type === "loop_finished").length, 0, "no finish action");
    assert.equal(await sandbox.git("rev-list", "--count", "main..loop/steady").catch(() => "0"), "0");
    const report = await sandbox.cli(["report", "steady"]);
    assert.match(report.stdout, /No run failed: the suite was stable, and nothing was changed/);
    const data = JSON.parse((await sandbox.cli(["report", "steady", "--json"])).stdout);
    assert.equal(data.strategy.kind, "streak");
    assert.deepEqual(
      [data.strategy.streak.fullRuns, data.strategy.streak.failedRuns, data.strategy.streak.finalStreak],
      [3, 0, 3],
    );
    assert.ok(Math.abs(data.strategy.streak.failureRateBound - 0.632) < 0.001);
  } finally {
    await sandbox.cleanup();
  }
});

test("kill -9 in the middle of a streak (between runs, and during a run), then resume: the same runs, verified", {
  skip: process.platform === "linux" ? false : "crash runs are tuned on Linux",
  timeout: 600_000,
}, async () => {
  const reference = await racySandbox();
  let events: StreamedEvent[];
  try {
    const run = await reference.sandbox.cli(["run", reference.spec, "--json"], { env: reference.env });
    assert.equal(run.code, 0, run.stderr);
    events = eventsIn(run.stdout);
  } finally {
    await reference.sandbox.cleanup();
  }
  const seqOf = (predicate: (event: StreamedEvent) => boolean) => {
    const found = events.find(predicate);
    assert.ok(found, "the reference run has the crash point");
    return found.seq;
  };
  const phaseIs = (iteration: number, phase: string) => (event: StreamedEvent) =>
    event.data.iteration === iteration &&
    (event.type === "gate_started" ? event.data.phase : (event.data.result as { phase?: string })?.phase) ===
      phase;
  const crashPoints = {
    "after the base commit's red run": seqOf(
      (event) => event.type === "gate_ended" && phaseIs(0, "confirm")(event),
    ),
    "after the base recheck": seqOf((event) => event.type === "gate_ended" && phaseIs(0, "recheck")(event)),
    "after iteration 1's verifier": seqOf(
      (event) => event.type === "verifier_ended" && event.data.iteration === 1,
    ),
    "after iteration 2's first confirmation": seqOf(
      (event) => event.type === "gate_ended" && phaseIs(2, "confirm")(event),
    ),
    "during iteration 2's last run": seqOf(
      (event) => event.type === "gate_started" && phaseIs(2, "confirm-2")(event),
    ),
  };
  for (const [where, crashAfter] of Object.entries(crashPoints)) {
    const { sandbox, env, spec } = await racySandbox();
    try {
      const child = sandbox.spawnCli(["run", spec, "--json"], {
        env: { ...env, LOOPWRIGHT_TEST_CRASH_AFTER_EVENT: String(crashAfter) },
      });
      await child.done;
      assert.equal(child.signalCode, "SIGKILL", `${where}: the run was not killed`);
      const resume = await sandbox.cli(["resume", "racy", "--json"], { env, timeoutMs: 120_000 });
      assert.equal(resume.code, 0, `${where}: ${resume.stderr}`);
      const resumed = eventsIn(resume.stdout);
      const runs = gateRuns(resumed);
      assert.deepEqual(runs, gateRuns(events), `${where}: the same runs, none counted twice`);
      assert.deepEqual(
        resumed.filter((event) => event.type === "iteration_ended").map((event) => event.data.outcome),
        ["failed", "verified"],
        where,
      );
      if (where.startsWith("during")) {
        assert.equal(resumed.filter((event) => event.type === "gate_interrupted").length, 1, where);
      }
      const subjects = await sandbox.git("log", "--format=%s", "main..loop/racy");
      assert.deepEqual(subjects.split("\n"), [
        "loopwright: racy iteration 2",
        "loopwright: racy iteration 1",
      ]);
    } finally {
      await sandbox.cleanup();
    }
  }
});

test("a spec's rerunFailed is the recheck command; maxRuns spent mid-streak ends budget_exhausted", {
  timeout: 120_000,
}, async () => {
  const { sandbox, env } = await racySandbox();
  try {
    const spec = racySpec
      .replace("passes: 3, maxRuns: 12", "passes: 3, maxRuns: 3")
      .replace('run: "node --test" }', 'run: "node --test", rerunFailed: "node --test test/total.test.js" }');
    const run = await sandbox.cli(["run", await sandbox.spec(spec), "--json"], { env });
    assert.equal(run.code, 3, run.stderr);
    const events = eventsIn(run.stdout);
    assert.deepEqual(gateRuns(events), [
      "0:baseline:pass",
      "0:confirm:FAIL",
      "0:recheck:pass",
      "1:grade:pass",
    ]);
    const recheck = events
      .filter((event) => event.type === "gate_ended")
      .map((event) => event.data.result as { phase: string; command: string })
      .find((result) => result.phase === "recheck");
    assert.equal(recheck?.command, "node --test test/total.test.js");
    assert.equal(events.findLast((event) => event.type === "iteration_ended")?.data.outcome, "over_budget");
    const stop = events.findLast((event) => event.type === "loop_stopped");
    assert.equal(stop?.data.reason, "budget_exhausted");
    assert.match(String(stop?.data.message), /the streak's 3 full runs are spent: 1 of 3 consecutive passes/);
  } finally {
    await sandbox.cleanup();
  }
});
