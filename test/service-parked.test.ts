/**
 * A loop that spends its daily cost cap under the service parks without holding a slot: its run ends,
 * the next queued loop starts in its place, and at UTC midnight the service wakes it and it goes on.
 */
import assert from "node:assert/strict";
import { test } from "node:test";
import { createSandbox } from "./support/loop-sandbox.ts";
import { startService, stopService, submit, timelines, waitForStopped } from "./support/service-harness.ts";

test("a parked loop frees its slot, and the service wakes it at UTC midnight", {
  timeout: 120_000,
}, async () => {
  const sandbox = await createSandbox();
  try {
    await submit(
      sandbox,
      "thrifty",
      `name: thrifty
goal: count.txt holds 2
repo: ./repo
maker:
  engine: scripted
  turns:
    - { write: { count.txt: "1\\n" }, costUsd: 3 }
    - { write: { count.txt: "2\\n" }, costUsd: 3 }
verifier: { engine: scripted, turns: [{ verdict: auto }] }
gates: [{ id: count, kind: tests-pass, run: "grep -qx 2 count.txt" }]
budget: { maxIterations: 3, maxCostUsdPerIteration: 5, maxCostUsdPerDay: 2 }
`,
    );
    await submit(
      sandbox,
      "patient",
      `name: patient
goal: patient.txt says done.
repo: ./repo
maker: { engine: scripted, turns: [{ write: { patient.txt: "done\\n" } }] }
verifier: { engine: scripted, turns: [{ verdict: auto }] }
gates: [{ id: done, kind: tests-pass, run: "grep -qx done patient.txt" }]
`,
    );
    // The service's clock (and its loops') stands 12 s before the next UTC midnight.
    const now = Date.now();
    const midnight = Date.UTC(
      new Date(now).getUTCFullYear(),
      new Date(now).getUTCMonth(),
      new Date(now).getUTCDate() + 1,
    );
    const service = await startService(sandbox, ["--max-active", "1"], {
      LOOPWRIGHT_TEST_CLOCK_SKEW_MS: String(midnight - 12_000 - now),
    });
    try {
      await waitForStopped(sandbox, ["thrifty", "patient"], "both loops to stop");
    } finally {
      await stopService(service);
    }
    const all = timelines(sandbox);
    const thrifty = all.get("thrifty") ?? [];
    const patient = all.get("patient") ?? [];
    assert.equal(thrifty.findLast((event) => event.type === "loop_stopped")?.data.reason, "verified");
    assert.equal(patient.findLast((event) => event.type === "loop_stopped")?.data.reason, "verified");
    const runEnds = thrifty.filter((event) => event.type === "run_ended").map((event) => event.data.exit);
    assert.deepEqual(runEnds, ["parked", "verified"], "the parked run ended; the woken one finished");
    const parkedEnd = Date.parse(thrifty.find((event) => event.type === "run_ended")?.at ?? "");
    const patientStart = Date.parse(patient.find((event) => event.type === "run_started")?.at ?? "");
    const unparked = Date.parse(thrifty.find((event) => event.type === "loop_unparked")?.at ?? "");
    assert.ok(
      patientStart >= parkedEnd && patientStart < unparked,
      "the queued loop ran while the other was parked",
    );
    assert.match(service.output(), /thrifty \S+: starting \(woken at UTC midnight\)/);
  } finally {
    await sandbox.cleanup();
  }
});
