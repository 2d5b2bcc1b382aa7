/**
 * The supervisor in process, as the API and the benchmarks drive it: a loop submitted through the
 * waking store starts at once (not at the next tick), runs to the end, and `shutdown` returns promptly.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { test } from "node:test";
import { setTimeout as delay } from "node:timers/promises";
import { submitLoop } from "../src/app/submit-loop.ts";
import { readState } from "../src/loop/timeline.ts";
import { createSupervisor } from "../src/service/supervisor.ts";
import { wakingStore } from "../src/service/waking-store.ts";
import { openStore } from "../src/store/open-store.ts";
import { createSandbox } from "./support/loop-sandbox.ts";
import { waitFor } from "./support/wait-for.ts";

test("a submission in the supervisor's process starts at once; shutdown ends with nothing running", {
  timeout: 120_000,
}, async () => {
  const sandbox = await createSandbox();
  const store = await openStore(sandbox.home);
  const lines: string[] = [];
  // A tick an hour apart: only the submission's wake-up can start the loop in time.
  const supervisor = createSupervisor({
    store,
    home: sandbox.home,
    caps: { maxActive: 4, maxPerProvider: {} },
    tickMs: 3_600_000,
    log: (line) => lines.push(line),
  });
  try {
    supervisor.start();
    await delay(500); // its first tick (the recovery pass) is over: the next would be an hour away
    const submitted = await submitLoop({
      context: { store: wakingStore(store, supervisor.wake), home: sandbox.home },
      source: {
        text: `name: woken
goal: woken.txt says done.
repo: ./repo
maker: { engine: scripted, turns: [{ write: { woken.txt: "done\\n" } }] }
verifier: { engine: scripted, turns: [{ verdict: auto }] }
gates:
  - { id: done, kind: tests-pass, run: "grep -qx done woken.txt" }
`,
        label: "pasted.yaml",
        directory: sandbox.root,
      },
      by: { via: "web", name: "loopback" },
    });
    assert.equal(submitted.position, 1);
    assert.equal(submitted.loop.specPath, "pasted.yaml");
    await waitFor(() => lines.some((line) => line.includes("stopped")), "the loop's run to end", 60_000);
    const { state, events } = await readState(store, submitted.loop);
    assert.equal(state.stopReason, "verified");
    const queuedAt = Date.parse(events.find((event) => event.type === "loop_queued")?.at ?? "");
    const startedAt = Date.parse(events.find((event) => event.type === "run_started")?.at ?? "");
    assert.ok(startedAt - queuedAt < 5_000, `started ${startedAt - queuedAt} ms after it was queued`);
    assert.match(
      lines.join("\n"),
      /loop woken \S+: starting \(queued\)[\s\S]*loop woken \S+: stopped: verified/,
    );
    const unfinished = await supervisor.shutdown(1_000);
    assert.deepEqual(unfinished, []);
    assert.equal(await sandbox.git("show", "loop/woken:woken.txt"), "done");
  } finally {
    await supervisor.shutdown(0);
    await store.close();
    await sandbox.cleanup();
  }
});

test("submitLoop from text names problems by the label and creates nothing", {
  timeout: 60_000,
}, async () => {
  const sandbox = await createSandbox();
  const store = await openStore(sandbox.home);
  try {
    await assert.rejects(
      submitLoop({
        context: { store, home: sandbox.home },
        source: {
          text: "name: x\ngoal: g\nrepo: ./repo\nmaker: { engine: nope }\n",
          label: "pasted.yaml",
          directory: join(sandbox.root),
        },
        by: { via: "web", name: "loopback" },
      }),
      /pasted\.yaml:4: maker\.engine/,
    );
    assert.deepEqual(await store.listLoops(), []);
  } finally {
    await store.close();
    await sandbox.cleanup();
  }
});
