/**
 * A controller process runs several loops (`--loops-per-controller`, default 4): fifty loops cost a few
 * node processes, not fifty. Its death is the death of each loop it held: each is resumed, in a process
 * of its own, so a loop that keeps killing its controller takes its neighbours down once, and then
 * only itself, until it is stopped after its own deaths in a row.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { DatabaseSync } from "node:sqlite";
import { test } from "node:test";
import { runsOf, submitHangingLoop, waitForMakerOfRun } from "./support/hanging-loops.ts";
import { createSandbox } from "./support/loop-sandbox.ts";
import { startService, stopService, timelines, waitForStopped } from "./support/service-harness.ts";
import { isAlive, processesOfRuns, survivors } from "./support/surviving-processes.ts";
import { waitFor } from "./support/wait-for.ts";

const needsProc = process.platform === "linux" ? false : "finding processes needs /proc";

test("loops share a controller; one that keeps killing it takes its neighbour down once, then dies alone", {
  skip: needsProc,
  timeout: 240_000,
}, async () => {
  const sandbox = await createSandbox();
  try {
    await submitHangingLoop(sandbox, "steady", 1);
    await submitHangingLoop(sandbox, "doomed", 100);
    const service = await startService(sandbox);
    try {
      const shared = await waitForMakerOfRun(sandbox, "steady", 1);
      assert.equal(await waitForMakerOfRun(sandbox, "doomed", 1), shared, "both loops in one controller");
      process.kill(shared, "SIGKILL");
      await waitFor(() => !isAlive(shared), `controller ${shared} to be gone`);
      const killed = [shared];
      for (let run = 2; run <= 4; run++) {
        const controller = await waitForMakerOfRun(sandbox, "doomed", run);
        killed.push(controller);
        process.kill(controller, "SIGKILL");
        await waitFor(() => !isAlive(controller), `controller ${controller} to be gone`);
      }
      await waitForStopped(sandbox, ["steady", "doomed"], "both loops to stop", 60_000);

      const all = timelines(sandbox);
      const steady = all.get("steady") ?? [];
      const doomed = all.get("doomed") ?? [];
      assert.deepEqual(
        steady.filter((event) => event.type === "run_ended").map((event) => event.data.exit),
        ["controller died: killed by SIGKILL", "verified"],
        "the neighbour died once, with the shared controller, and finished",
      );
      const resumedIn = Number(runsOf(steady)[1].data.pid);
      assert.ok(
        !killed.includes(resumedIn),
        "the neighbour was resumed in a controller the doomed loop is not in",
      );
      assert.equal(
        new Set(killed).size,
        4,
        "each later death of the doomed loop was a controller of its own",
      );

      const stop = doomed.findLast((event) => event.type === "loop_stopped");
      assert.equal(stop?.data.reason, "error");
      assert.match(String(stop?.data.message), /^interrupted: its controller died 4 times in a row/);
      assert.match(
        service.output(),
        /steady \S+: starting \(controller died \(killed by SIGKILL\), resumed: restart 1 of 3\)/,
      );
      assert.doesNotMatch(service.output(), /steady \S+: starting \(controller died .* restart 2 of 3\)/);
      const runIds = new Set([...runsOf(steady), ...runsOf(doomed)].map((event) => String(event.data.runId)));
      assert.deepEqual(processesOfRuns(runIds), [], "no maker of any run survives");
    } finally {
      await stopService(service);
    }
  } finally {
    await sandbox.cleanup();
  }
});

test("a burst of six loops: four in one controller, two in the next, all started in submission order", {
  skip: needsProc,
  timeout: 180_000,
}, async () => {
  const sandbox = await createSandbox();
  try {
    const names = ["burst-1", "burst-2", "burst-3", "burst-4", "burst-5", "burst-6"];
    for (const name of names) await submitHangingLoop(sandbox, name, 0);
    const service = await startService(sandbox, ["--max-active", "6"]);
    try {
      await waitForStopped(sandbox, names, "the six loops to finish");
    } finally {
      await stopService(service);
    }
    const database = new DatabaseSync(join(sandbox.home, "loopwright.db"), { readOnly: true });
    const starts = database
      .prepare(
        "SELECT loops.name AS name, events.data AS data FROM events JOIN loops ON loops.id = events.loop_id WHERE type = 'run_started' ORDER BY events.id",
      )
      .all() as { name: string; data: string }[];
    database.close();
    assert.deepEqual(
      starts.map((start) => start.name),
      names,
      "runs started in submission order",
    );
    const pids = starts.map((start) => Number(JSON.parse(start.data).pid));
    assert.deepEqual(new Set(pids.slice(0, 4)).size, 1, "the first four in one controller");
    assert.deepEqual(new Set(pids.slice(4)).size, 1, "the last two in another");
    assert.notEqual(pids[0], pids[4]);
  } finally {
    await sandbox.cleanup();
  }
});

test("--loops-per-controller 1: each loop runs in a controller process of its own", {
  skip: needsProc,
  timeout: 180_000,
}, async () => {
  const sandbox = await createSandbox();
  try {
    await submitHangingLoop(sandbox, "first", 1);
    await submitHangingLoop(sandbox, "second", 1);
    const service = await startService(sandbox, ["--loops-per-controller", "1"]);
    try {
      const first = await waitForMakerOfRun(sandbox, "first", 1);
      const second = await waitForMakerOfRun(sandbox, "second", 1);
      assert.notEqual(first, second);
      assert.notEqual(first, service.pid);
    } finally {
      await stopService(service);
    }
  } finally {
    await sandbox.cleanup();
  }
});

test("--idle-controllers 0: once its loops have ended, no controller process is left", {
  skip: needsProc,
  timeout: 180_000,
}, async () => {
  const sandbox = await createSandbox();
  try {
    await submitHangingLoop(sandbox, "one", 0);
    await submitHangingLoop(sandbox, "two", 0);
    const service = await startService(sandbox, ["--idle-controllers", "0"]);
    try {
      await waitForStopped(sandbox, ["one", "two"], "both loops to finish");
      const [one, two] = ["one", "two"].map((name) =>
        Number(runsOf(timelines(sandbox).get(name) ?? [])[0].data.pid),
      );
      assert.equal(one, two, "both loops in one controller");
      await waitFor(() => controllers(sandbox.home).length === 0, "the controller to leave", 10_000);
    } finally {
      await stopService(service);
    }
  } finally {
    await sandbox.cleanup();
  }
});

/** The live controller processes of the service of `home`. */
function controllers(home: string): string[] {
  return survivors(home).filter((process) => process.includes("controller-main"));
}

test("--loops-per-controller must be a whole number from 1 to 64", { timeout: 60_000 }, async () => {
  const sandbox = await createSandbox();
  try {
    for (const value of ["0", "65", "two"]) {
      const refused = await sandbox.cli(["serve", "--port", "0", "--loops-per-controller", value]);
      assert.equal(refused.code, 2, refused.stdout + refused.stderr);
      assert.match(
        refused.stderr,
        new RegExp(`--loops-per-controller: not a whole number from 1 to 64: ${value}`),
      );
    }
  } finally {
    await sandbox.cleanup();
  }
});
