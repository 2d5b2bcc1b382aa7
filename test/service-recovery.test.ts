/**
 * The service stopped while loops run, then started again: `kill -9` with three background loops in a
 * maker, a gate and a verifier step; SIGTERM, which lets steps reach their next event boundary for up to
 * 10 s. Either way the restart finishes every loop: verified, one commit per iteration, no event twice.
 */
import assert from "node:assert/strict";
import { existsSync } from "node:fs";
import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import { test } from "node:test";
import { createSandbox, type Sandbox } from "./support/loop-sandbox.ts";
import {
  type StoredRow,
  startService,
  stopService,
  submit,
  timelines,
  waitForStopped,
} from "./support/service-harness.ts";
import { processesOfRuns } from "./support/surviving-processes.ts";
import { waitFor } from "./support/wait-for.ts";

const needsProc = process.platform === "linux" ? false : "finding surviving processes needs /proc";

/**
 * Three loops whose maker, gate or verifier step hangs (sleeps a minute) the first time it runs, and one
 * whose maker waits for the test's go-ahead (`letStepEnd`): a step that can end in the grace after SIGTERM.
 * Returns their names.
 */
async function submitSlowLoops(sandbox: Sandbox): Promise<string[]> {
  const marker = (name: string) => join(sandbox.root, `${name}.slept`);
  const once = (name: string) => `if [ ! -e ${marker(name)} ]; then touch ${marker(name)}; sleep 60; fi`;
  await writeFile(
    join(sandbox.root, "maker.sh"),
    `#!/bin/sh\n${once("in-maker")}\necho 42 > in-maker.txt\n`,
    { mode: 0o755 },
  );
  const verdict = JSON.stringify({
    overall: "pass",
    gates: [
      { id: "answer", passed: true, reason: "says 42", evidence: [{ file: "in-verifier.txt", line: 1 }] },
    ],
  });
  await writeFile(
    join(sandbox.root, "step-end.sh"),
    `#!/bin/sh\nwhile [ ! -e ${join(sandbox.root, "go")} ]; do sleep 0.1; done\necho 42 > step-end.txt\n`,
    { mode: 0o755 },
  );
  await writeFile(join(sandbox.root, "verify.sh"), `#!/bin/sh\n${once("in-verifier")}\necho '${verdict}'\n`, {
    mode: 0o755,
  });
  const spec = (name: string, maker: string, verifier: string, gate: string) => `name: ${name}
goal: ${name}.txt says 42.
repo: ./repo
maker: ${maker}
verifier: ${verifier}
gates:
  - { id: answer, kind: tests-pass, run: "${gate}" }
`;
  const scriptedMaker = (name: string) =>
    `{ engine: scripted, turns: [{ write: { ${name}.txt: "42\\n" } }] }`;
  const scriptedVerifier = "{ engine: scripted, turns: [{ verdict: auto }] }";
  const check = (name: string) => `grep -qx 42 ${name}.txt`;
  await submit(
    sandbox,
    "in-maker",
    spec("in-maker", "{ engine: command, run: ./maker.sh }", scriptedVerifier, check("in-maker")),
  );
  await submit(
    sandbox,
    "in-gates",
    spec(
      "in-gates",
      scriptedMaker("in-gates"),
      scriptedVerifier,
      // The base commit has no in-gates.txt: the baseline run fails at once; the graded run hangs.
      `if [ -e in-gates.txt ]; then ${once("in-gates")}; fi; ${check("in-gates")}`,
    ),
  );
  await submit(
    sandbox,
    "in-verifier",
    spec(
      "in-verifier",
      scriptedMaker("in-verifier"),
      "{ engine: command, run: ./verify.sh }",
      check("in-verifier"),
    ),
  );
  await submit(
    sandbox,
    "step-end",
    spec("step-end", "{ engine: command, run: ./step-end.sh }", scriptedVerifier, check("step-end")),
  );
  return ["in-maker", "in-gates", "in-verifier", "step-end"];
}

/** Lets the maker of `step-end` finish its turn. */
const letStepEnd = (sandbox: Sandbox) => writeFile(join(sandbox.root, "go"), "");

/** Waits until the three slow loops are inside their hanging steps and `step-end` inside its maker turn. */
async function waitForSteps(sandbox: Sandbox): Promise<void> {
  const open = (events: StoredRow[], started: string, ended: string[]) => {
    const start = events.findLastIndex((event) => event.type === started);
    return start >= 0 && !events.slice(start).some((event) => ended.includes(event.type));
  };
  await waitFor(
    () => {
      const all = timelines(sandbox);
      const of = (name: string) => all.get(name) ?? [];
      const gradeStarted = of("in-gates").some(
        (event) => event.type === "gate_started" && event.data.phase === "grade",
      );
      return (
        open(of("in-maker"), "maker_started", ["maker_ended"]) &&
        existsSync(join(sandbox.root, "in-maker.slept")) &&
        gradeStarted &&
        existsSync(join(sandbox.root, "in-gates.slept")) &&
        open(of("in-verifier"), "verifier_started", ["verifier_ended"]) &&
        existsSync(join(sandbox.root, "in-verifier.slept")) &&
        open(of("step-end"), "maker_started", ["maker_ended"])
      );
    },
    "the loops to be in their maker, gate and verifier steps",
    120_000,
  );
}

/**
 * Every loop verified with one commit on its branch, its timeline numbered without a gap, and no fact
 * recorded twice: each iteration started, committed, screened and ended once, each gate graded once per
 * phase, the loop queued, prepared, finished and stopped once.
 */
async function assertFinishedOnce(sandbox: Sandbox, names: string[]): Promise<Map<string, StoredRow[]>> {
  const all = timelines(sandbox);
  for (const name of names) {
    const events = all.get(name) ?? [];
    assert.deepEqual(
      events.map((event) => event.seq),
      events.map((_, index) => index + 1),
      `${name}: one timeline, no gap`,
    );
    assert.equal(events.findLast((event) => event.type === "loop_stopped")?.data.reason, "verified", name);
    assert.equal(await sandbox.git("rev-list", "--count", `main..loop/${name}`), "1", `${name}: one commit`);
    const once = [
      "loop_created",
      "loop_queued",
      "loop_prepared",
      "iteration_started",
      "commit_created",
      "change_screened",
      "gate_ended",
      "iteration_ended",
      "loop_finished",
      "loop_stopped",
    ];
    const keys = events
      .filter((event) => once.includes(event.type))
      .map((event) => {
        const result = event.data.result as { id: string; phase: string } | undefined;
        return [event.type, event.data.iteration, result?.phase, result?.id].join(" ");
      });
    const repeated = keys.filter((key, index) => keys.indexOf(key) !== index);
    assert.deepEqual(repeated, [], `${name}: no fact recorded twice`);
  }
  return all;
}

const runIdsOf = (events: StoredRow[]) =>
  events.filter((event) => event.type === "run_started").map((event) => String(event.data.runId));

test("kill -9 of the service while loops are in maker, gate and verifier steps; the restart finishes them all", {
  skip: needsProc,
  timeout: 180_000,
}, async () => {
  const sandbox = await createSandbox();
  try {
    const names = await submitSlowLoops(sandbox);
    const first = await startService(sandbox);
    await waitForSteps(sandbox);
    first.kill("SIGKILL");
    await first.done;
    assert.equal(first.signalCode(), "SIGKILL");
    await letStepEnd(sandbox);

    const second = await startService(sandbox);
    try {
      await waitForStopped(sandbox, names, "the restarted service to finish every loop");
    } finally {
      await stopService(second);
    }
    const all = await assertFinishedOnce(sandbox, names);
    const statuses = (name: string, type: string) =>
      (all.get(name) ?? []).filter((event) => event.type === type).map((event) => event.data.status);
    assert.deepEqual(statuses("in-maker", "maker_ended"), ["interrupted", "completed"]);
    assert.deepEqual(statuses("in-verifier", "verifier_ended"), ["interrupted", "ruled"]);
    const gates = all.get("in-gates") ?? [];
    assert.deepEqual(
      gates.filter((event) => event.type === "gate_interrupted").map((event) => event.data.phase),
      ["grade"],
    );
    for (const name of names) {
      const runs = (all.get(name) ?? []).filter((event) => event.type === "run_started");
      assert.deepEqual(
        runs.map((event) => event.data.command),
        ["run", "resume"],
        `${name}: started from the queue, then resumed as \`resume\` does`,
      );
    }
    assert.match(second.output(), /in-maker \S+: starting \(interrupted, resumed\)/);
    const everyRun = new Set(names.flatMap((name) => runIdsOf(all.get(name) ?? [])));
    assert.deepEqual(processesOfRuns(everyRun), [], "no process of any run survives");
  } finally {
    await sandbox.cleanup();
  }
});

test("SIGTERM: steps get up to 10 s to reach a boundary, the service exits, and a restart finishes the loops", {
  skip: needsProc,
  timeout: 180_000,
}, async () => {
  const sandbox = await createSandbox();
  try {
    const names = await submitSlowLoops(sandbox);
    const first = await startService(sandbox);
    await waitForSteps(sandbox);
    const signalled = Date.now();
    first.kill("SIGTERM");
    await letStepEnd(sandbox);
    const exit = await first.done;
    const seconds = (Date.now() - signalled) / 1000;
    assert.equal(exit.code, 0, first.output());
    assert.ok(seconds < 13, `the service took ${seconds} s to stop`);
    assert.ok(seconds >= 9, `the hanging steps got their 10 s (${seconds} s)`);
    assert.equal(existsSync(join(sandbox.home, "service.json")), false, "service.json is removed");
    process.stdout.write(`# SIGTERM to exit: ${seconds.toFixed(1)} s\n`);

    const stopped = timelines(sandbox);
    const stepEnd = stopped.get("step-end") ?? [];
    assert.deepEqual(
      stepEnd.slice(-2).map((event) => [event.type, event.data.status ?? event.data.exit]),
      [
        ["maker_ended", "completed"],
        ["run_ended", "shutdown"],
      ],
      "the step in progress ended, then the run, at that boundary: no stop, no cancel",
    );
    for (const name of names) {
      const events = stopped.get(name) ?? [];
      assert.equal(
        events.some((event) => ["loop_stopped", "cancel_requested"].includes(event.type)),
        false,
        name,
      );
    }
    const firstRuns = new Set(names.flatMap((name) => runIdsOf(stopped.get(name) ?? [])));
    assert.deepEqual(
      processesOfRuns(firstRuns),
      [],
      "the hanging steps' processes were stopped with the service",
    );

    const second = await startService(sandbox);
    try {
      await waitForStopped(sandbox, names, "the restarted service to finish every loop");
    } finally {
      await stopService(second);
    }
    await assertFinishedOnce(sandbox, names);
  } finally {
    await sandbox.cleanup();
  }
});
