/**
 * Schedules through the service, end to end: `run --detach` of a scheduled spec registers it (no loop
 * yet); a service whose clock has passed the first firing fires it into a new queued loop, named after
 * the firing time, and runs that loop to the end.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { test } from "node:test";
import { createSandbox } from "./support/loop-sandbox.ts";
import { startService, stopService, timelines, waitForStopped } from "./support/service-harness.ts";
import { waitFor } from "./support/wait-for.ts";

test("a registered schedule fires while serve runs: a new loop, queued by the schedule, verified", {
  timeout: 120_000,
}, async () => {
  const sandbox = await createSandbox();
  try {
    const spec = await sandbox.spec(
      `name: tick
goal: tick.txt says done.
repo: ./repo
schedule: { every: 1m }
maker: { engine: scripted, turns: [{ write: { tick.txt: "done\\n" } }] }
verifier: { engine: scripted, turns: [{ verdict: auto }] }
gates:
  - { id: done, kind: tests-pass, run: "grep -qx done tick.txt" }
`,
      join(sandbox.root, "tick.yaml"),
    );
    const detached = await sandbox.cli(["run", "--detach", spec]);
    assert.equal(detached.code, 0, detached.stderr);
    assert.match(detached.stdout, /registered schedule tick in .*: every 1m/);
    assert.equal(timelines(sandbox).size, 0, "registering creates no loop");

    // The service's clock stands 65 s ahead: the first firing (registration + 1m) is due.
    const service = await startService(sandbox, [], { LOOPWRIGHT_TEST_CLOCK_SKEW_MS: "65000" });
    let fired = "";
    try {
      await waitFor(() => {
        fired = [...timelines(sandbox).keys()].find((name) => name.startsWith("tick-")) ?? "";
        return fired !== "";
      }, "the schedule to fire");
      await waitForStopped(sandbox, [fired], "the fired loop to finish");
    } finally {
      await stopService(service);
    }
    assert.match(fired, /^tick-\d{8}-\d{4}$/);
    const events = timelines(sandbox).get(fired) ?? [];
    const queued = events.find((event) => event.type === "loop_queued");
    assert.deepEqual(queued?.data, { by: { via: "schedule", name: "tick" }, command: "run" });
    assert.equal(events.findLast((event) => event.type === "loop_stopped")?.data.reason, "verified");
    assert.match(service.output(), /schedule tick \(\S+\): started/);
    assert.equal(timelines(sandbox).size, 1, "one firing, one loop");
  } finally {
    await sandbox.cleanup();
  }
});
