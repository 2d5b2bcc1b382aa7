/**
 * Every strategy under the service: a streak, a task list and a metric loop submitted with
 * `run --detach` to a real `loopwright serve`, the service killed with SIGKILL while they run, a new
 * service started on the same home: each loop is recovered and finishes with its strategy's stop reason,
 * with no strategy event recorded twice (a task ticked once, an attempt judged once).
 */
import assert from "node:assert/strict";
import { test } from "node:test";
import { createSandbox } from "./support/loop-sandbox.ts";
import {
  type StoredRow,
  startService,
  stopService,
  submit,
  timelines,
  waitForStopped,
} from "./support/service-harness.ts";
import { metricSpec, strategyEnv, strategyFiles, streakSpec, tasksSpec } from "./support/strategy-loops.ts";
import { waitFor } from "./support/wait-for.ts";

const names = ["racy", "numbers", "tune"];

function of(events: StoredRow[], type: string): StoredRow[] {
  return events.filter((event) => event.type === type);
}

test("streak, tasks and metric loops run under serve, survive kill -9 of the service, and stop for their own reasons", {
  timeout: 300_000,
}, async (context) => {
  const sandbox = await createSandbox(strategyFiles);
  const env = strategyEnv(sandbox);
  try {
    const first = await startService(sandbox, ["--max-active", "3"], env);
    await submit(sandbox, "racy", streakSpec);
    await submit(sandbox, "numbers", tasksSpec("numbers", true));
    await submit(sandbox, "tune", metricSpec("tune", ", target: 0.85"));
    // Kill the service once every loop is under way: each has started its first iteration.
    await waitFor(
      () => {
        const all = timelines(sandbox);
        return names.every((name) => of(all.get(name) ?? [], "iteration_started").length > 0);
      },
      "every loop to start an iteration",
      120_000,
    );
    first.kill("SIGKILL");
    await first.done;
    const atKill = timelines(sandbox);
    const interrupted = names.filter((name) => of(atKill.get(name) ?? [], "loop_stopped").length === 0);
    assert.ok(interrupted.length > 0, "at least one loop was cut off mid-run");
    context.diagnostic(`cut off by kill -9: ${interrupted.join(", ")}`);

    const second = await startService(sandbox, ["--max-active", "3"], env);
    await waitForStopped(sandbox, names, "every loop to stop after the restart", 240_000);
    await stopService(second);

    const all = timelines(sandbox);
    const stop = (name: string) => of(all.get(name) ?? [], "loop_stopped").at(-1)?.data;
    const story = (name: string) =>
      (all.get(name) ?? [])
        .map(
          (event) =>
            `${event.type}${event.type === "gate_ended" ? `:${(event.data.result as { phase: string; passed: boolean }).phase}:${(event.data.result as { passed: boolean }).passed}` : ""}`,
        )
        .join(" ");
    assert.equal(stop("racy")?.reason, "verified", `${stop("racy")?.message}\n${story("racy")}`);
    assert.match(String(stop("racy")?.message), /^3 consecutive full-suite passes on [0-9a-f]{10}/);
    assert.equal(stop("numbers")?.reason, "no_progress", String(stop("numbers")?.message));
    assert.match(String(stop("numbers")?.message), /3 of 4 tasks done; blocked: 2 "Write two.txt"/);
    assert.equal(stop("tune")?.reason, "target_reached", String(stop("tune")?.message));
    for (const name of names)
      assert.equal(of(all.get(name) ?? [], "loop_stopped").length, 1, `${name} stopped exactly once`);

    const ticked = of(all.get("numbers") ?? [], "task_completed").map((event) => event.data.taskId);
    assert.deepEqual(ticked, ["1", "3", "4"], "each task ticked once");
    assert.deepEqual(
      of(all.get("numbers") ?? [], "task_blocked").map((event) => event.data.taskId),
      ["2"],
    );
    assert.equal(
      (await sandbox.git("log", "--format=%s", "main..loop/numbers"))
        .split("\n")
        .filter((line) => / task \d done/.test(line)).length,
      3,
      "one tick commit per done task, none repeated after the restart",
    );
    const judged = of(all.get("tune") ?? [], "attempt_judged").map(
      (event) => `${event.data.iteration}:${event.data.kept ? "kept" : "reset"}`,
    );
    assert.deepEqual(judged, ["1:kept", "2:reset", "3:kept"], "each attempt judged once");
    assert.equal(
      await sandbox.git("show", "loop/racy:src/total.js"),
      "export function total() {\n  return 42;\n}",
    );
  } finally {
    await sandbox.cleanup();
  }
});
