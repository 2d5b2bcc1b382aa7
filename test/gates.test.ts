import assert from "node:assert/strict";
import { mkdir, mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, test } from "node:test";
import { createRedactor } from "../src/core/redact.ts";
import { type GateRun, runGates } from "../src/gates/run-gates.ts";
import { isAlive } from "./support/surviving-processes.ts";

const onLinux = process.platform === "linux";

let folder: string;
let worktree: string;
before(async () => {
  folder = await mkdtemp(join(tmpdir(), "loopwright-gates-"));
  worktree = join(folder, "worktree");
  await mkdir(worktree);
});
after(async () => {
  await rm(folder, { recursive: true, force: true });
});

let runs = 0;
/** Fresh log folder per call, so that tests never read each other's logs. */
function options() {
  runs++;
  return {
    cwd: worktree,
    logDirectory: join(folder, `logs-${runs}`, "gates"),
    runId: "run-gates",
    stepPrefix: `s${runs}`,
  };
}

function gate(id: string, command: string, fields: Partial<GateRun> = {}): GateRun {
  return { id, kind: "tests-pass", command, timeoutMs: 0, parallel: true, ...fields };
}

describe("runGates", () => {
  test("every gate runs after one fails; results come in input order; logs say what ran", async () => {
    const events: string[] = [];
    const outcomes = await runGates(
      [
        gate("first", "echo failing; exit 3", { parallel: false }),
        gate("missing", "definitely-not-a-command-loopwright"),
        gate("second", "echo fine", { parallel: false }),
      ],
      {
        ...options(),
        onGateStarted: (id) => events.push(`started ${id}`),
        onGateEnded: (outcome) => events.push(`ended ${outcome.id}`),
      },
    );
    assert.deepEqual(
      outcomes.map((outcome) => [outcome.id, outcome.exitCode, outcome.passed]),
      [
        ["first", 3, false],
        ["missing", 127, false],
        ["second", 0, true],
      ],
    );
    assert.equal(events.length, 6);
    const missingLog = await readFile(outcomes[1].logPath, "utf8");
    assert.match(missingLog, /^\$ definitely-not-a-command-loopwright\n/);
    assert.ok(missingLog.includes(worktree));
    assert.match(missingLog, /definitely-not-a-command-loopwright: .*not found/);
    assert.match(outcomes[1].tail, /not found/);
    assert.match(await readFile(outcomes[0].logPath, "utf8"), /failing\n(.|\n)*exit 3/);
  });

  test("parallel gates overlap; a sequential gate overlaps nothing", async () => {
    const marks = join(folder, "marks");
    await mkdir(marks);
    const now = "$(date +%s%N)";
    // Each parallel gate waits (up to 5 s) for the other to have started: they pass only if they overlap.
    const waitFor = (other: string) =>
      `echo ${now} > ${marks}/$G.start; i=0; while [ ! -e ${marks}/${other}.start ] && [ $i -lt 250 ]; do sleep 0.02; i=$((i+1)); done; [ -e ${marks}/${other}.start ] || exit 1; echo ${now} > ${marks}/$G.end`;
    const alone = `echo ${now} > ${marks}/$G.start; sleep 0.1; echo ${now} > ${marks}/$G.end`;
    const outcomes = await runGates(
      [
        gate("solo-one", `G=solo-one; ${alone}`, { parallel: false }),
        gate("left", `G=left; ${waitFor("right")}`),
        gate("solo-two", `G=solo-two; ${alone}`, { parallel: false }),
        gate("right", `G=right; ${waitFor("left")}`),
      ],
      options(),
    );
    assert.deepEqual(
      outcomes.map((outcome) => outcome.passed),
      [true, true, true, true],
    );
    const read = async (id: string) => ({
      start: BigInt((await readFile(join(marks, `${id}.start`), "utf8")).trim()),
      end: BigInt((await readFile(join(marks, `${id}.end`), "utf8")).trim()),
    });
    const spans = Object.fromEntries(
      await Promise.all(["left", "right", "solo-one", "solo-two"].map(async (id) => [id, await read(id)])),
    );
    assert.ok(
      spans.left.start < spans.right.end && spans.right.start < spans.left.end,
      "parallel gates overlap",
    );
    for (const solo of ["solo-one", "solo-two"]) {
      for (const other of ["left", "right", "solo-one", "solo-two"]) {
        if (other === solo) continue;
        const apart = spans[solo].end <= spans[other].start || spans[other].end <= spans[solo].start;
        assert.ok(apart, `${solo} overlaps ${other}`);
      }
    }
    assert.ok(spans["solo-one"].end <= spans["solo-two"].start, "sequential gates keep input order");
  });

  test("a gate past its timeout is killed with its whole tree and reported timed out", {
    skip: !onLinux,
  }, async () => {
    const pids = join(folder, "hang-pids");
    const [outcome] = await runGates(
      [
        gate("hang", `sleep 300 & echo $! >> ${pids}; (sleep 300; echo never) & echo $! >> ${pids}; wait`, {
          timeoutMs: 300,
        }),
      ],
      options(),
    );
    assert.equal(outcome.timedOut, true);
    assert.equal(outcome.passed, false);
    assert.equal(outcome.exitCode, null);
    const started = (await readFile(pids, "utf8")).trim().split("\n").map(Number);
    assert.equal(started.length, 2);
    for (const pid of started) assert.equal(isAlive(pid), false, `pid ${pid} survived`);
    assert.match(await readFile(outcome.logPath, "utf8"), /timed out/);
  });

  test("a gate that leaves a setsid daemon behind passes; the daemon is killed and reported", {
    skip: !onLinux,
  }, async () => {
    const pidFile = join(folder, "daemon-pid");
    const [outcome] = await runGates(
      [
        gate(
          "daemon",
          `setsid sh -c 'echo $$ > ${pidFile}.tmp; mv ${pidFile}.tmp ${pidFile}; exec sleep 300' & while [ ! -s ${pidFile} ]; do sleep 0.02; done; echo up`,
        ),
      ],
      options(),
    );
    const pid = Number(await readFile(pidFile, "utf8"));
    assert.equal(outcome.passed, true);
    assert.deepEqual(outcome.survivorsKilled, [pid]);
    assert.equal(isAlive(pid), false);
    // The log's last line says how it ended, with the survivors it killed.
    assert.match(
      await readFile(outcome.logPath, "utf8"),
      /\nup\n# exit 0 after \d+\.\d s; killed 1 process\(es\) it left running\n$/,
    );
  });

  test("an abort cancels the running gate and the ones not yet started", {
    skip: !onLinux,
    timeout: 5000,
  }, async () => {
    const controller = new AbortController();
    const outcomes = await runGates(
      [
        gate("slow", "echo begun; sleep 300", { parallel: false }),
        gate("later", "echo ran", { parallel: false }),
      ],
      {
        ...options(),
        signal: controller.signal,
        onGateStarted: (id) => {
          if (id === "slow") setTimeout(() => controller.abort(), 100);
        },
      },
    );
    assert.deepEqual(
      outcomes.map((outcome) => [outcome.id, outcome.cancelled, outcome.passed]),
      [
        ["slow", true, false],
        ["later", true, false],
      ],
    );
    assert.match(
      await readFile(outcomes[0].logPath, "utf8"),
      /\nbegun\n# cancelled after \d+\.\d s \(SIG\w+\)\n$/,
    );
    const laterLog = await readFile(outcomes[1].logPath, "utf8");
    assert.match(laterLog, /not started: cancelled\n# cancelled after 0\.0 s\n$/);
    assert.doesNotMatch(laterLog, /^ran$/m);
  });

  test("secrets from the environment are redacted in logs and tails", async () => {
    const env = { DEPLOY_SECRET: "hunter2-hunter2-hunter2" };
    const [outcome] = await runGates(
      [
        gate(
          "leaky",
          `echo "token is $DEPLOY_SECRET"; printf 'half hunter2-hun' >&2; sleep 0.1; echo 'ter2-hunter2 done' >&2`,
        ),
      ],
      { ...options(), env, redact: createRedactor(env) },
    );
    // The header repeats the command, which holds the two halves; the output is what matters.
    const output = (await readFile(outcome.logPath, "utf8")).split("\n").slice(2).join("\n");
    for (const text of [output, outcome.tail]) {
      assert.doesNotMatch(text, /hunter2/);
      assert.match(text, /token is \[redacted:DEPLOY_SECRET\]/);
      assert.match(text, /half \[redacted:DEPLOY_SECRET\] done/);
    }
  });
});
