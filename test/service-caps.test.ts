/**
 * The service's caps, asserted from the timelines: with `--max-active 2`, five submitted loops never run
 * more than two at once and all five finish, in submission order; a foreground `run` takes a slot too.
 */
import assert from "node:assert/strict";
import { test } from "node:test";
import { createSandbox } from "./support/loop-sandbox.ts";
import {
  mostAtOnce,
  runIntervals,
  startService,
  stopService,
  submit,
  timelines,
  waitForStopped,
} from "./support/service-harness.ts";
import { waitFor } from "./support/wait-for.ts";

/** A loop whose maker takes `sleep` and then writes what the gate wants: verified in one iteration. */
const quickSpec = (name: string, sleep = "1s") => `name: ${name}
goal: ${name}.txt says done.
repo: ./repo
maker:
  engine: scripted
  turns:
    - { sleep: ${sleep}, write: { ${name}.txt: "done\\n" } }
verifier: { engine: scripted, turns: [{ verdict: auto }] }
gates:
  - { id: done, kind: tests-pass, run: "grep -qx done ${name}.txt" }
`;

test("--max-active 2: five submitted loops never run more than two at once, start in submission order, all finish", {
  timeout: 120_000,
}, async () => {
  const sandbox = await createSandbox();
  try {
    const names = ["cap-1", "cap-2", "cap-3", "cap-4", "cap-5"];
    for (const name of names) await submit(sandbox, name, quickSpec(name));
    const service = await startService(sandbox, ["--max-active", "2"]);
    try {
      await waitForStopped(sandbox, names, "the five loops to stop");
    } finally {
      await stopService(service);
    }
    const all = timelines(sandbox);
    for (const name of names) {
      assert.equal(
        all.get(name)?.findLast((event) => event.type === "loop_stopped")?.data.reason,
        "verified",
      );
      assert.equal(await sandbox.git("rev-list", "--count", `main..loop/${name}`), "1");
    }
    const intervals = runIntervals(all);
    assert.equal(intervals.length, 5, "one run each");
    assert.equal(mostAtOnce(intervals), 2, "two at once, never more");
    const startOrder = [...intervals].sort((a, b) => a.start - b.start).map((interval) => interval.loop);
    assert.deepEqual(startOrder.slice(2), names.slice(2), "the queue starts in submission order");
    assert.deepEqual(startOrder.slice(0, 2).sort(), names.slice(0, 2));
  } finally {
    await sandbox.cleanup();
  }
});

test("a foreground run counts against --max-active: the queued loop waits until it ends", {
  timeout: 120_000,
}, async () => {
  const sandbox = await createSandbox();
  try {
    const service = await startService(sandbox, ["--max-active", "1"]);
    try {
      const foregroundSpec = await sandbox.spec(quickSpec("fg", "3s"), `${sandbox.root}/fg.yaml`);
      const foreground = sandbox.spawnCli(["run", foregroundSpec]);
      await waitFor(
        () => (timelines(sandbox).get("fg") ?? []).some((event) => event.type === "run_started"),
        "the foreground run to start",
      );
      await submit(sandbox, "bg", quickSpec("bg", "0s"));
      const run = await foreground.done;
      assert.equal(run.code, 0, run.stdout + run.stderr);
      await waitForStopped(sandbox, ["bg"], "the queued loop to run after the foreground one");
    } finally {
      await stopService(service);
    }
    const all = timelines(sandbox);
    const [fg] = runIntervals(new Map([["fg", all.get("fg") ?? []]]));
    const [bg] = runIntervals(new Map([["bg", all.get("bg") ?? []]]));
    assert.ok(
      bg.start >= fg.end,
      `the queued loop started ${fg.end - bg.start} ms before the foreground run ended`,
    );
    assert.equal(all.get("bg")?.findLast((event) => event.type === "loop_stopped")?.data.reason, "verified");
  } finally {
    await sandbox.cleanup();
  }
});
