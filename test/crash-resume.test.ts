/**
 * `kill -9` of the controller at any point, then `loopwright resume`: the loop replays its timeline from
 * the stored spec snapshot, kills what the dead run left running, closes or re-runs the interrupted step
 * and finishes: same stop reason, one commit per iteration, no surviving process. Also: the run lock a
 * live controller holds, and that a dead one does not.
 */
import assert from "node:assert/strict";
import { existsSync } from "node:fs";
import { rm, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { test } from "node:test";
import { sandboxAvailability } from "../src/sandbox/sandbox-availability.ts";
import { type CliResult, createSandbox, type Sandbox } from "./support/loop-sandbox.ts";
import { eventsIn, loopSummary, type StreamedEvent } from "./support/loop-timeline.ts";
import { commandName, isAlive, processesOfRuns } from "./support/surviving-processes.ts";
import { waitFor } from "./support/wait-for.ts";

const onLinux = process.platform === "linux";
const needsProc = onLinux ? false : "finding surviving processes needs /proc";

/** Iteration 1 fails the `answer` gate, iteration 2 passes both gates and the verifier approves. */
const twoIterationSpec = `name: crashy
goal: answer.txt says 42.
repo: ./repo
maker:
  engine: scripted
  turns:
    - say: "first guess"
      write: { answer.txt: "41\\n" }
    - say: "second guess"
      write: { answer.txt: "42\\n" }
verifier:
  engine: scripted
  turns:
    - verdict: auto
gates:
  - { id: answer, kind: tests-pass, run: "grep -qx 42 answer.txt" }
  - { id: present, kind: build-succeeds, run: "test -f answer.txt" }
budget: { maxIterations: 3 }
`;

/** What the spec file says after the crash: if resume re-read it, the loop would run out of budget. */
const poisonedSpec = `name: crashy
goal: answer.txt says 43.
repo: ./repo
maker: { engine: scripted, turns: [{ write: { answer.txt: "0\\n" } }] }
gates:
  - { id: answer, kind: tests-pass, run: "grep -qx 43 answer.txt" }
budget: { maxIterations: 1 }
`;

test("kill -9 after each event of a two-iteration run, then one resume: verified every time", {
  skip: needsProc,
  timeout: 600_000,
}, async () => {
  const started = Date.now();
  const eventCount = await countEventsOfUninterruptedRun();
  const failures: string[] = [];
  await forEachBounded(range(1, eventCount), 2, async (crashAfter) => {
    try {
      await crashThenResume(crashAfter);
    } catch (error) {
      failures.push(`crash after event ${crashAfter}: ${(error as Error).message}`);
    }
  });
  const seconds = ((Date.now() - started) / 1000).toFixed(1);
  process.stdout.write(`# ${eventCount} crash points, crashed and resumed in ${seconds} s\n`);
  assert.deepEqual(failures, []);
});

/** Runs the loop once without a crash and returns how many events its timeline holds. */
async function countEventsOfUninterruptedRun(): Promise<number> {
  const sandbox = await createSandbox({ "answer.txt": "0\n" });
  try {
    const spec = await sandbox.spec(twoIterationSpec);
    const run = await sandbox.cli(["run", spec, "--json"]);
    assert.equal(run.code, 0, run.stderr + run.stdout);
    const events = eventsIn(run.stdout);
    await assertVerifiedTwoCommitTimeline(sandbox, events);
    assert.deepEqual(
      events.map((event) => event.seq),
      range(1, events.length),
    );
    return events.length;
  } finally {
    await sandbox.cleanup();
  }
}

async function crashThenResume(crashAfter: number): Promise<void> {
  const sandbox = await createSandbox({ "answer.txt": "0\n" });
  try {
    const spec = await sandbox.spec(twoIterationSpec);
    const child = sandbox.spawnCli(["run", spec, "--json"], {
      env: { LOOPWRIGHT_TEST_CRASH_AFTER_EVENT: String(crashAfter) },
    });
    const run = await child.done;
    assert.equal(child.signalCode, "SIGKILL", `run was not killed: ${describe(run)}`);
    // Event 1 (loop_created) is written before the live event stream starts, so it is never printed.
    const lastPrinted = eventsIn(run.stdout).at(-1)?.seq;
    assert.equal(
      lastPrinted,
      crashAfter === 1 ? undefined : crashAfter,
      "the run died right after its event",
    );

    // Resume must use the snapshot: the file is gone, or says something else.
    if (crashAfter % 2 === 1) await rm(spec);
    else await writeFile(spec, poisonedSpec);

    const resume = await sandbox.cli(["resume", "crashy", "--json"], { timeoutMs: 60_000 });
    assert.equal(resume.code, 0, `resume: ${describe(resume)}`);
    const events = eventsIn(resume.stdout);
    assert.deepEqual(
      events.map((event) => event.seq),
      range(1, events.length),
      "resume --json prints the whole timeline",
    );
    await assertVerifiedTwoCommitTimeline(sandbox, events);
    const runIds = events.filter((event) => event.type === "run_started").map((event) => event.data.runId);
    assert.equal(runIds.length, crashAfter === 1 ? 1 : 2, "the crashed run and the resume");
    assert.deepEqual(processesOfRuns(new Set(runIds as string[])), [], "no process of the loop survives");
  } finally {
    await sandbox.cleanup();
  }
}

/** Verified; iterations 1 (failed) and 2 (verified) each ended once; one loop commit per iteration. */
async function assertVerifiedTwoCommitTimeline(sandbox: Sandbox, events: StreamedEvent[]): Promise<void> {
  const stops = events.filter((event) => event.type === "loop_stopped");
  assert.equal(stops.at(-1)?.data.reason, "verified");
  const ended = events
    .filter((event) => event.type === "iteration_ended")
    .map((event) => `${event.data.iteration}:${event.data.outcome}`);
  assert.deepEqual(ended, ["1:failed", "2:verified"]);
  const subjects = await sandbox.git("log", "--format=%s", "main..loop/crashy");
  assert.deepEqual(subjects.split("\n"), [
    "loopwright: crashy iteration 2",
    "loopwright: crashy iteration 1",
  ]);
  assert.equal(await sandbox.git("show", "loop/crashy:answer.txt"), "42");
}

test("kill -9 during the maker: the orphaned turn is killed, its work kept under a ref, the turn re-run", {
  skip: needsProc,
  timeout: 60_000,
}, async () => {
  const sandbox = await createSandbox({ "answer.txt": "0\n" });
  try {
    const slept = join(sandbox.root, "maker-slept");
    await writeFile(
      join(sandbox.root, "maker.sh"),
      `#!/bin/sh
if [ ! -e ${slept} ]; then
  echo "half done" > draft.txt
  touch ${slept}
  sleep 30
fi
echo 42 > answer.txt
echo "wrote 42"
`,
      { mode: 0o755 },
    );
    const spec = await sandbox.spec(`name: slow-maker
goal: answer.txt says 42.
repo: ./repo
maker: { engine: command, run: ./maker.sh }
verifier: { engine: scripted, turns: [{ verdict: auto }] }
gates:
  - { id: answer, kind: tests-pass, run: "grep -qx 42 answer.txt" }
`);
    const events = await resumeAfterKillDuringStep(sandbox, "slow-maker", spec, slept, undefined, "turn");
    const makerEnds = events
      .filter((event) => event.type === "maker_ended")
      .map((event) => event.data.status);
    assert.deepEqual(makerEnds, ["interrupted", "completed"]);
    assert.equal(await sandbox.git("show", "loop/slow-maker:answer.txt"), "42");
    const tree = await sandbox.git("ls-tree", "--name-only", "loop/slow-maker");
    assert.doesNotMatch(tree, /draft\.txt/, "the re-run starts from the iteration's start commit");
    const loopId = await loopIdOf(sandbox, "slow-maker");
    const refs = (await sandbox.git("for-each-ref", "--format=%(refname)", `refs/loopwright/${loopId}/`))
      .split("\n")
      .filter(Boolean);
    assert.equal(refs.length, 1, "the interrupted turn's work is kept under one ref");
    assert.equal(await sandbox.git("show", `${refs[0]}:draft.txt`), "half done");
  } finally {
    await sandbox.cleanup();
  }
});

test("kill -9 during the gates: resume kills the orphaned gate and re-runs it on the same commit", {
  skip: needsProc,
  timeout: 60_000,
}, async () => {
  const sandbox = await createSandbox({ "answer.txt": "0\n" });
  try {
    const slept = join(sandbox.root, "gate-slept");
    const spec = await sandbox.spec(`name: slow-gate
goal: answer.txt says 42.
repo: ./repo
maker: { engine: scripted, turns: [{ write: { answer.txt: "42\\n" } }] }
verifier: { engine: scripted, turns: [{ verdict: auto }] }
gates:
  - id: answer
    kind: tests-pass
    run: "if grep -qx 42 answer.txt && [ ! -e ${slept} ]; then touch ${slept}; sleep 30; fi; grep -qx 42 answer.txt"
  - { id: present, kind: build-succeeds, run: "test -f answer.txt" }
`);
    // The slow gate sleeps on the maker's commit only (not on the base commit's baseline run). The quick
    // gate runs beside it: kill only once the quick one's graded run has ended, so that it is not interrupted too.
    const presentEnded = (streamed: StreamedEvent[]) =>
      streamed.some(
        (event) =>
          event.type === "gate_ended" &&
          (event.data.result as { id: string; phase: string }).id === "present" &&
          (event.data.result as { phase: string }).phase === "grade",
      );
    const events = await resumeAfterKillDuringStep(sandbox, "slow-gate", spec, slept, presentEnded);
    const interrupted = events.filter((event) => event.type === "gate_interrupted");
    assert.deepEqual(
      interrupted.map((event) => event.data.gateId),
      ["answer"],
    );
    const graded = events
      .filter((event) => event.type === "gate_ended")
      .map((event) => event.data.result as { id: string; phase: string; passed: boolean })
      .filter((result) => result.phase === "grade")
      .map((result) => `${result.id}:${result.passed}`)
      .sort();
    assert.deepEqual(graded, ["answer:true", "present:true"], "each gate graded once, none twice");
    assert.equal(events.filter((event) => event.type === "commit_created").length, 1);
  } finally {
    await sandbox.cleanup();
  }
});

test("kill -9 during the verifier: resume kills the orphaned turn and asks the verifier again", {
  skip: needsProc,
  timeout: 60_000,
}, async () => {
  const sandbox = await createSandbox({ "answer.txt": "0\n" });
  try {
    const slept = join(sandbox.root, "verifier-slept");
    const verdict = JSON.stringify({
      overall: "pass",
      gates: [{ id: "answer", passed: true, reason: "says 42", evidence: [{ file: "answer.txt", line: 1 }] }],
    });
    await writeFile(
      join(sandbox.root, "verify.sh"),
      `#!/bin/sh
if [ ! -e ${slept} ]; then touch ${slept}; sleep 30; fi
echo '${verdict}'
`,
      { mode: 0o755 },
    );
    const spec = await sandbox.spec(`name: slow-verifier
goal: answer.txt says 42.
repo: ./repo
maker: { engine: scripted, turns: [{ write: { answer.txt: "42\\n" } }] }
verifier: { engine: command, run: ./verify.sh }
gates:
  - { id: answer, kind: tests-pass, run: "grep -qx 42 answer.txt" }
`);
    const events = await resumeAfterKillDuringStep(sandbox, "slow-verifier", spec, slept, undefined, "turn");
    const verifierEnds = events
      .filter((event) => event.type === "verifier_ended")
      .map((event) => event.data.status);
    assert.deepEqual(verifierEnds, ["interrupted", "ruled"]);
    assert.equal(events.filter((event) => event.type === "commit_created").length, 1);
  } finally {
    await sandbox.cleanup();
  }
});

test("a live run holds the loop: a second run and a resume are refused; once it is killed, resume takes over", {
  skip: needsProc,
  timeout: 60_000,
}, async () => {
  const sandbox = await createSandbox({ "answer.txt": "0\n" });
  try {
    const slept = join(sandbox.root, "maker-slept");
    const spec = await sandbox.spec(`name: held
goal: answer.txt says 42.
repo: ./repo
maker:
  engine: command
  run: "if [ ! -e ${slept} ]; then touch ${slept}; sleep 30; fi; echo 42 > answer.txt"
verifier: { engine: scripted, turns: [{ verdict: auto }] }
gates:
  - { id: answer, kind: tests-pass, run: "grep -qx 42 answer.txt" }
`);
    const live = sandbox.spawnCli(["run", spec, "--json"]);
    try {
      await waitFor(() => existsSync(slept), "the maker to start");
      const secondRun = await sandbox.cli(["run", spec], { timeoutMs: 30_000 });
      assert.equal(secondRun.code, 2, describe(secondRun));
      assert.match(secondRun.stderr, /already running/);
      const resume = await sandbox.cli(["resume", "held"], { timeoutMs: 30_000 });
      assert.equal(resume.code, 2, describe(resume));
      assert.match(resume.stderr, /held is already running/);
      assert.equal(live.exitCode, null, "the live run goes on");
    } finally {
      live.kill("SIGKILL");
      await live.done;
    }
    const takeover = await sandbox.cli(["resume", "held"], { timeoutMs: 30_000 });
    assert.equal(takeover.code, 0, describe(takeover));
    assert.match(takeover.stdout, /stopped: verified/);
    assert.equal(await sandbox.git("rev-list", "--count", "main..loop/held"), "1");
  } finally {
    await sandbox.cleanup();
  }
});

/**
 * Kills the run of loop `name` while its slow step is under way (see `killDuringStep`), then resumes
 * it and checks what every such resume does: it exits 0, sweeps the dead run's processes before going
 * on, stops verified with one commit on the loop's branch, and leaves no process behind. Returns the
 * resume's events.
 */
async function resumeAfterKillDuringStep(
  sandbox: Sandbox,
  name: string,
  spec: string,
  marker: string,
  settled?: (streamed: StreamedEvent[]) => boolean,
  step: "turn" | "gate" = "gate",
): Promise<StreamedEvent[]> {
  // An engine turn runs in the OS sandbox, whose processes die with the controller; a gate's outlive it.
  const contained = step === "turn" && sandboxAvailability().available;
  const dead = await killDuringStep(sandbox, spec, marker, settled, contained);
  const resume = await sandbox.cli(["resume", name, "--json"], { timeoutMs: 30_000 });
  assert.equal(resume.code, 0, describe(resume));
  const events = eventsIn(resume.stdout);
  if (contained) assert.equal(isAlive(dead.sleeper), false);
  else assertSwept(events, dead);
  assert.equal(events.filter((event) => event.type === "loop_stopped").at(-1)?.data.reason, "verified");
  assert.equal(await sandbox.git("rev-list", "--count", `main..loop/${name}`), "1");
  assert.deepEqual(processesOfRuns(runIdsOf(events)), []);
  return events;
}

/**
 * Starts `run`, waits until the slow step signals (by creating `marker`) that it is under way (and
 * until the events streamed so far satisfy `settled`, when given), kills the controller with SIGKILL,
 * and checks that the step's `sleep` outlived it (or, `contained` in the OS sandbox, died with it).
 * Returns the dead run's id.
 */
async function killDuringStep(
  sandbox: Sandbox,
  spec: string,
  marker: string,
  settled: (streamed: StreamedEvent[]) => boolean = () => true,
  contained = false,
): Promise<{ runId: string; sleeper: number }> {
  const child = sandbox.spawnCli(["run", spec, "--json"]);
  try {
    await waitFor(() => existsSync(marker), "the slow step to start");
    await waitFor(() => settled(eventsIn(child.output().stdout)), "the steps beside the slow one to end");
  } catch (error) {
    child.kill("SIGKILL");
    throw new Error(`${(error as Error).message}; run: ${describe(await child.done)}`);
  }
  const runId = String(
    eventsIn(child.output().stdout).find((event) => event.type === "run_started")?.data.runId,
  );
  let sleeper: number | undefined;
  await waitFor(() => {
    sleeper = processesOfRuns(new Set([runId])).find((pid) => commandName(pid) === "sleep");
    return sleeper !== undefined;
  }, "the step's sleep to start");
  child.kill("SIGKILL");
  await child.done;
  assert.equal(child.signalCode, "SIGKILL");
  if (contained) {
    const pid = sleeper as number;
    await waitFor(() => !isAlive(pid), "the sandboxed step's sleep to die with the controller");
  } else
    assert.ok(sleeper !== undefined && isAlive(sleeper), "the step's sleep outlives the dead controller");
  return { runId, sleeper: sleeper as number };
}

/** The resume swept the dead run's processes (the sleeping step among them) before going on. */
function assertSwept(events: StreamedEvent[], dead: { runId: string; sleeper: number }): void {
  const deadRunId = dead.runId;
  const swept = events.filter((event) => event.type === "processes_swept");
  assert.equal(swept.length, 1, "one sweep, by the resume");
  assert.ok((swept[0].data.runIds as string[]).includes(deadRunId));
  assert.ok((swept[0].data.pids as number[]).includes(dead.sleeper), "the orphaned sleep was killed");
  assert.equal(isAlive(dead.sleeper), false);
  const resumed = events.findIndex((event) => event.type === "run_started" && event.data.runId !== deadRunId);
  assert.ok(events.indexOf(swept[0]) < resumed, "the sweep comes before the resumed run starts");
}

async function loopIdOf(sandbox: Sandbox, name: string): Promise<string> {
  return (await loopSummary(sandbox, name)).id;
}

function runIdsOf(events: StreamedEvent[]): Set<string> {
  return new Set(
    events.filter((event) => event.type === "run_started").map((event) => String(event.data.runId)),
  );
}

function describe(result: CliResult): string {
  return `exit ${result.code}\n${result.stderr}\n${result.stdout.slice(-3000)}`;
}

function range(from: number, to: number): number[] {
  return Array.from({ length: to - from + 1 }, (_, index) => from + index);
}

/** Runs `work` for every item, at most `limit` at a time. */
async function forEachBounded<T>(items: T[], limit: number, work: (item: T) => Promise<void>): Promise<void> {
  const queue = [...items];
  const worker = async () => {
    for (let item = queue.shift(); item !== undefined; item = queue.shift()) await work(item);
  };
  await Promise.all(Array.from({ length: limit }, worker));
}
