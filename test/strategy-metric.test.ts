/**
 * `strategy: metric` end to end: the real CLI, real git, a real metric command. `score.js` prints the
 * `value` of params.json plus measurement noise (a counter outside the repository rotates it through
 * 0, +0.01, -0.01), so the median of three samples is the value and the noise floor is 0.01.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { test } from "node:test";
import { createSandbox, type Sandbox } from "./support/loop-sandbox.ts";
import { eventsIn, type StreamedEvent } from "./support/loop-timeline.ts";

const params = (value: number, seed = 1) => `{\n  "value": ${value},\n  "seed": ${seed}\n}\n`;

const project = {
  "params.json": params(1.0),
  "score.js": `const { readFileSync, writeFileSync } = require("node:fs");
const { value } = JSON.parse(readFileSync("params.json", "utf8"));
const file = process.env.METRIC_COUNTER;
let count = 0;
try { count = Number(readFileSync(file, "utf8")) || 0; } catch {}
writeFileSync(file, String(count + 1));
const jitter = [0, 0.01, -0.01][(count + 1) % 3];
console.log("score: " + (value + jitter).toFixed(4));
`,
  "check.js": 'JSON.parse(require("node:fs").readFileSync("params.json", "utf8"));\nconsole.log("ok");\n',
};

function specWith(turns: string[], strategy = "", maxIterations = turns.length): string {
  return `name: tune
goal: Lower the score that score.js prints.
repo: ./repo
strategy: { kind: metric, run: "node score.js", pattern: "score: ([0-9.]+)", direction: minimize, samples: 3, plateau: 0${strategy} }
maker:
  engine: scripted
  turns:
${turns.map((text) => `    - { say: ${JSON.stringify(`params ${text.replace(/\s+/g, " ")}`)}, write: { params.json: ${JSON.stringify(text)} } }`).join("\n")}
verifier: { engine: scripted, turns: [{ verdict: auto }] }
gates:
  - { id: valid, kind: build-succeeds, run: "node check.js" }
budget: { maxIterations: ${maxIterations} }
`;
}

async function metricSandbox(): Promise<{ sandbox: Sandbox; env: NodeJS.ProcessEnv }> {
  const sandbox = await createSandbox(project);
  return { sandbox, env: { METRIC_COUNTER: join(sandbox.root, "metric-count") } };
}

function judgements(events: StreamedEvent[]): string[] {
  return events
    .filter((event) => event.type === "attempt_judged")
    .map((event) => `${event.data.iteration}:${event.data.kept ? "kept" : "reset"}`);
}

const fourAttempts = [params(0.9), params(0.895), params(0.8), params(0.85)];

test("4 attempts: exactly the 2 that beat the noise floor are kept, the others reset and kept under refs", {
  timeout: 180_000,
}, async () => {
  const { sandbox, env } = await metricSandbox();
  try {
    const run = await sandbox.cli(["run", await sandbox.spec(specWith(fourAttempts)), "--json"], { env });
    assert.equal(run.code, 3, run.stderr);
    const events = eventsIn(run.stdout);
    assert.deepEqual(judgements(events), ["1:kept", "2:reset", "3:kept", "4:reset"]);
    const base = events.find((event) => event.type === "metric_measured");
    assert.deepEqual(base?.data.samples, [1.01, 0.99, 1]);
    const attempts = events.filter(
      (event) => event.type === "metric_measured" && event.data.phase !== "base",
    );
    assert.deepEqual(
      attempts.map((event) => `${event.data.iteration}:${event.data.phase}:${event.data.median}`),
      [
        "1:attempt:0.9",
        "1:remeasure:0.9",
        "2:attempt:0.895",
        "3:attempt:0.8",
        "3:remeasure:0.8",
        "4:attempt:0.85",
      ],
      "a kept result is re-measured once; a discarded one is not",
    );
    const stop = events.findLast((event) => event.type === "loop_stopped");
    assert.equal(stop?.data.reason, "budget_exhausted");
    const finished = events.find((event) => event.type === "loop_finished");
    const kept = events.filter((event) => event.type === "attempt_judged" && event.data.kept);
    assert.equal(
      finished?.data.sha,
      kept.at(-1)?.data.sha,
      "the branch is finished on the best kept attempt",
    );
    assert.equal(await sandbox.git("show", "loop/tune:params.json"), params(0.8).trimEnd());
    assert.deepEqual((await sandbox.git("log", "--reverse", "--format=%s", "main..loop/tune")).split("\n"), [
      "loopwright: tune iteration 1",
      "loopwright: tune iteration 3",
    ]);
    for (const reset of events.filter((event) => event.type === "attempt_judged" && !event.data.kept)) {
      const ref = String(reset.data.ref);
      assert.match(ref, /^refs\/loopwright\/tune-[0-9a-f]+\/attempts\/[24]$/);
      assert.equal(
        await sandbox.git("rev-parse", ref),
        reset.data.sha,
        "the discarded attempt stays reachable",
      );
    }
    const report = await sandbox.cli(["report", "tune"]);
    assert.match(report.stdout, /noise floor 0.01 \(median absolute deviation/);
    assert.match(report.stdout, /Best kept: 0.8 at `[0-9a-f]{10}`; 2 of 4 attempts kept/);
    assert.match(report.stdout, /\| 2 \| `[0-9a-f]{10}` \| 0.905, 0.885, 0.895 \| 0.895 \| – \| ✗ reset/);
    const data = JSON.parse((await sandbox.cli(["report", "tune", "--json"])).stdout);
    assert.equal(data.strategy.kind, "metric");
    assert.equal(data.strategy.metric.judgements.length, 4);
  } finally {
    await sandbox.cleanup();
  }
});

test("a metric 'improved' by changing the seed is flagged and reset; target_reached exits 6", {
  timeout: 180_000,
}, async () => {
  const { sandbox, env } = await metricSandbox();
  try {
    const spec = specWith([params(0.9, 2), params(0.9)], ", target: 0.95");
    const run = await sandbox.cli(["run", await sandbox.spec(spec), "--json"], { env });
    assert.equal(run.code, 6, run.stderr);
    const events = eventsIn(run.stdout);
    const flags = events
      .filter((event) => event.type === "tamper_flagged")
      .map((event) => event.data.flag as { kind: string; file: string; detail: string });
    assert.deepEqual(
      flags.map((flag) => `${flag.kind} ${flag.file}`),
      ["metric-evaluation-changed params.json"],
    );
    assert.match(flags[0].detail, /a random seed changed/);
    assert.deepEqual(judgements(events), ["1:reset", "2:kept"]);
    const first = events.find((event) => event.type === "iteration_ended");
    assert.deepEqual(first?.data.failingGates, ["tamper"]);
    const stop = events.findLast((event) => event.type === "loop_stopped");
    assert.equal(stop?.data.reason, "target_reached");
    assert.match(String(stop?.data.message), /the best kept attempt measures 0.9, target 0.95/);
  } finally {
    await sandbox.cleanup();
  }
});

test("kill -9 in the middle of a metric loop, then resume: the same judgements, the branch on the best", {
  skip: process.platform === "linux" ? false : "crash runs are tuned on Linux",
  timeout: 600_000,
}, async () => {
  const reference = await metricSandbox();
  let events: StreamedEvent[];
  try {
    const spec = await reference.sandbox.spec(specWith(fourAttempts));
    events = eventsIn((await reference.sandbox.cli(["run", spec, "--json"], { env: reference.env })).stdout);
  } finally {
    await reference.sandbox.cleanup();
  }
  const seqOf = (predicate: (event: StreamedEvent) => boolean, what: string) => {
    const found = events.find(predicate);
    assert.ok(found, what);
    return found.seq;
  };
  const crashPoints = {
    "after the base measurement": seqOf((event) => event.type === "metric_measured", "base"),
    "before measuring attempt 1": seqOf(
      (event) => event.type === "verifier_ended" && event.data.iteration === 1,
      "v1",
    ),
    "before the re-measure": seqOf(
      (event) => event.type === "metric_measured" && event.data.phase === "attempt",
      "attempt 1",
    ),
    "before resetting attempt 2": seqOf(
      (event) => event.type === "iteration_ended" && event.data.iteration === 2,
      "i2",
    ),
    "right after resetting attempt 2": seqOf(
      (event) => event.type === "attempt_judged" && event.data.iteration === 2,
      "j2",
    ),
  };
  for (const [where, crashAfter] of Object.entries(crashPoints)) {
    const { sandbox, env } = await metricSandbox();
    try {
      const child = sandbox.spawnCli(["run", await sandbox.spec(specWith(fourAttempts)), "--json"], {
        env: { ...env, LOOPWRIGHT_TEST_CRASH_AFTER_EVENT: String(crashAfter) },
      });
      await child.done;
      assert.equal(child.signalCode, "SIGKILL", `${where}: the run was not killed`);
      const resume = await sandbox.cli(["resume", "tune", "--json"], { env, timeoutMs: 120_000 });
      assert.equal(resume.code, 3, `${where}: ${resume.stderr}`);
      assert.deepEqual(
        judgements(eventsIn(resume.stdout)),
        ["1:kept", "2:reset", "3:kept", "4:reset"],
        where,
      );
      assert.equal(await sandbox.git("show", "loop/tune:params.json"), params(0.8).trimEnd(), where);
      assert.deepEqual(
        (await sandbox.git("log", "--reverse", "--format=%s", "main..loop/tune")).split("\n"),
        ["loopwright: tune iteration 1", "loopwright: tune iteration 3"],
        where,
      );
    } finally {
      await sandbox.cleanup();
    }
  }
});
