/**
 * Each loop the service runs has its own controller process. One that dies while the service is up
 * (`kill -9` here) is noticed: its run is closed on the timeline, the loop resumed as `resume` does, and
 * no process of the dead run survives. A loop whose controllers keep dying is resumed at most three
 * times, then stopped with a reason that says so. A service killed with -9 leaves no controller running
 * unsupervised: each ends its run at the next event boundary, or kills its step after the 10 s grace.
 */
import assert from "node:assert/strict";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import { runsOf, submitHangingLoop, waitForMakerOfRun } from "./support/hanging-loops.ts";
import { createSandbox, type Sandbox } from "./support/loop-sandbox.ts";
import { startService, stopService, timelines, waitForStopped } from "./support/service-harness.ts";
import { isAlive, processesOfRuns, survivors } from "./support/surviving-processes.ts";
import { waitFor } from "./support/wait-for.ts";

const needsProc = process.platform === "linux" ? false : "finding processes needs /proc";

test("kill -9 of a loop's controller: the service closes the run, resumes the loop and it finishes", {
  skip: needsProc,
  timeout: 180_000,
}, async () => {
  const sandbox = await createSandbox();
  try {
    await submitHangingLoop(sandbox, "crashy", 1);
    const service = await startService(sandbox);
    try {
      const controller = await waitForMakerOfRun(sandbox, "crashy", 1);
      assert.notEqual(controller, service.pid, "the loop runs in a controller process of its own");
      const firstRun = String(runsOf(timelines(sandbox).get("crashy") ?? [])[0].data.runId);
      process.kill(controller, "SIGKILL");
      await waitForStopped(sandbox, ["crashy"], "the resumed loop to finish");
      assert.equal(isAlive(controller), false);
      // Swept by the resumed run (or gone with its sandbox, which dies with its parent).
      assert.deepEqual(processesOfRuns(new Set([firstRun])), [], "the dead run's maker is gone");

      const events = timelines(sandbox).get("crashy") ?? [];
      assert.deepEqual(
        events.map((event) => event.seq),
        events.map((_, index) => index + 1),
        "one timeline, no gap",
      );
      assert.deepEqual(
        events.filter((event) => event.type === "run_ended").map((event) => event.data.exit),
        ["controller died: killed by SIGKILL", "verified"],
      );
      assert.deepEqual(
        runsOf(events).map((event) => event.data.command),
        ["run", "resume"],
      );
      assert.deepEqual(
        events.filter((event) => event.type === "maker_ended").map((event) => event.data.status),
        ["interrupted", "completed"],
      );
      assert.equal(events.findLast((event) => event.type === "loop_stopped")?.data.reason, "verified");
      assert.equal(await sandbox.git("rev-list", "--count", "main..loop/crashy"), "1", "one commit");
      assert.match(service.output(), /crashy \S+: its controller died \(killed by SIGKILL\)/);
      assert.match(
        service.output(),
        /crashy \S+: starting \(controller died \(killed by SIGKILL\), resumed: restart 1 of 3\)/,
      );
    } finally {
      await stopService(service);
    }
    // The controllers' output went to the loop's own log, not the service's terminal.
    const logs = controllerLogs(sandbox);
    assert.equal(logs.length, 1);
    assert.match(logs[0], /run ended: .*"stopReason":"verified"/);
  } finally {
    await sandbox.cleanup();
  }
});

test("a loop whose controller dies four times in a row is stopped with a reason, not resumed forever", {
  skip: needsProc,
  timeout: 240_000,
}, async () => {
  const sandbox = await createSandbox();
  try {
    await submitHangingLoop(sandbox, "doomed", 100);
    const service = await startService(sandbox);
    try {
      for (let run = 1; run <= 4; run++) {
        const controller = await waitForMakerOfRun(sandbox, "doomed", run);
        process.kill(controller, "SIGKILL");
        await waitFor(() => !isAlive(controller), `controller ${controller} to be gone`);
      }
      await waitForStopped(sandbox, ["doomed"], "the service to give up on the loop", 60_000);
      const events = timelines(sandbox).get("doomed") ?? [];
      const stop = events.findLast((event) => event.type === "loop_stopped");
      assert.equal(stop?.data.reason, "error");
      assert.match(
        String(stop?.data.message),
        /^interrupted: its controller died 4 times in a row \(killed by SIGKILL\); see \S+controller\.log and \S+controllers\.log; `loopwright resume doomed` tries again$/,
      );
      assert.equal(runsOf(events).length, 5, "started, resumed three times, then stopped by a fifth run");
      const runIds = new Set(runsOf(events).map((event) => String(event.data.runId)));
      assert.deepEqual(processesOfRuns(runIds), [], "no maker of any run survives");
      assert.match(
        service.output(),
        /doomed \S+: starting \(its controller died 4 times in a row, stopping it\)/,
      );
      assert.doesNotMatch(service.output(), /restart 4 of 3/);
    } finally {
      await stopService(service);
    }
  } finally {
    await sandbox.cleanup();
  }
});

test("kill -9 of the service: its controllers end their runs by themselves, none is left running", {
  skip: needsProc,
  timeout: 180_000,
}, async () => {
  const sandbox = await createSandbox();
  try {
    await submitHangingLoop(sandbox, "orphan", 1);
    const service = await startService(sandbox);
    const controller = await waitForMakerOfRun(sandbox, "orphan", 1);
    const runId = String(runsOf(timelines(sandbox).get("orphan") ?? [])[0].data.runId);
    service.kill("SIGKILL");
    await service.done;
    const killedAt = Date.now();
    await waitFor(() => !isAlive(controller), "the orphaned controller to leave", 20_000);
    const seconds = (Date.now() - killedAt) / 1000;
    assert.ok(seconds >= 8, `its hanging step got the grace (${seconds} s)`);
    assert.deepEqual(processesOfRuns(new Set([runId])), [], "it killed its step before leaving");
    // The idle controllers kept started ahead (`--idle-controllers`, default 2) left too, at once.
    await waitFor(
      () => survivors(sandbox.home).length === 0,
      "every process of the service to be gone",
      5_000,
    );
    assert.match(
      controllerLogs(sandbox).join("\n"),
      /the service is gone: ending the run at its next event boundary/,
    );

    const restarted = await startService(sandbox);
    try {
      await waitForStopped(sandbox, ["orphan"], "the restarted service to finish the loop");
    } finally {
      await stopService(restarted);
    }
    const events = timelines(sandbox).get("orphan") ?? [];
    assert.deepEqual(
      runsOf(events).map((event) => event.data.command),
      ["run", "resume"],
    );
    assert.equal(events.findLast((event) => event.type === "loop_stopped")?.data.reason, "verified");
  } finally {
    await sandbox.cleanup();
  }
});

/** The text of every loop's controller.log in the sandbox's home. */
function controllerLogs(sandbox: Sandbox): string[] {
  const all = timelines(sandbox);
  const logs: string[] = [];
  for (const events of all.values()) {
    const path = join(sandbox.home, "loops", events[0]?.loopId ?? "", "controller.log");
    if (existsSync(path)) logs.push(readFileSync(path, "utf8"));
  }
  return logs;
}
