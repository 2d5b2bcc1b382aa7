/**
 * The owner's actions through the API on real loops: pause, resume (queued for a service), cancel (a
 * loop without a controller stops right here), delete; each recorded with `by: {via: "web", name}`,
 * and refused with a clear 4xx where it cannot apply, nothing filed then.
 */
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { loadSpecFile } from "../src/core/spec-file.ts";
import { createLoop } from "../src/loop/create-loop.ts";
import { preflight } from "../src/loop/preflight.ts";
import { currentLockOwner } from "../src/process/liveness.ts";
import { createServer, type LoopwrightServer } from "../src/server/create-server.ts";
import { registerSchedule } from "../src/service/schedules/register-schedule.ts";
import { openStore } from "../src/store/open-store.ts";
import type { Store } from "../src/store/store.ts";
import { createSandbox, type Sandbox } from "./support/loop-sandbox.ts";

const secret = "secret-of-the-actions-test";
let sandbox: Sandbox;
let store: Store;
let server: LoopwrightServer;

before(async () => {
  sandbox = await createSandbox();
  store = await openStore(sandbox.home);
  server = createServer({ store, home: sandbox.home, port: 4477, secret, env: {}, log: () => {} });
});
after(async () => {
  server?.close();
  await store?.close();
  await sandbox?.cleanup();
});

function act(path: string, method = "POST", body = "") {
  return server.app.request(`http://127.0.0.1:4477${path}`, {
    method,
    headers: { "x-loopwright-secret": secret, "content-type": "application/json" },
    body: body || undefined,
  });
}

/** A loop registered as `run` registers it (created, no controller yet). */
async function createdLoop(name: string): Promise<string> {
  const path = await sandbox.spec(
    `name: ${name}
goal: count.txt holds 1
repo: ./repo
maker: { engine: scripted, turns: [{ write: { count.txt: "1\\n" } }] }
gates: [{ id: count, kind: tests-pass, run: "grep -qx 1 count.txt" }]
`,
    `${sandbox.root}/${name}.yaml`,
  );
  const loaded = await loadSpecFile(path);
  const check = await preflight(loaded, path);
  assert.deepEqual(check.problems, []);
  const loop = await createLoop(store, loaded, check.repoRoot ?? "", check.baseSha ?? "");
  return loop.id;
}

async function lastEvent(loopId: string, type: string) {
  return (await store.readEvents(loopId)).filter((event) => event.type === type).at(-1);
}

test("pause, then cancel a loop without a controller: both recorded with the web actor", async () => {
  const id = await createdLoop("paused-then-cancelled");
  const pause = await act(`/api/loops/${id}/pause`);
  assert.equal(pause.status, 202, await pause.clone().text());
  assert.equal(((await pause.json()) as { outcome: string }).outcome, "pause_requested");
  assert.deepEqual((await lastEvent(id, "pause_requested"))?.data.by, { via: "web", name: "loopback" });
  const cancel = await act(`/api/loops/${id}/cancel`);
  assert.equal(cancel.status, 202, await cancel.clone().text());
  assert.equal(((await cancel.json()) as { outcome: string }).outcome, "cancelled");
  const detail = (await (await act(`/api/loops/${id}`, "GET")).json()) as {
    status: string;
    summary: { stopReason: string };
  };
  assert.equal(detail.summary.stopReason, "user_cancelled");
  const again = await act(`/api/loops/${id}/cancel`);
  assert.equal(again.status, 400);
  assert.match(((await again.json()) as { error: string }).error, /already stopped/);
  const pauseStopped = await act(`/api/loops/${id}/pause`);
  assert.equal(pauseStopped.status, 400);
});

test("resume queues a stopped loop for the service, once; a body on an action without one is refused", async () => {
  const id = await createdLoop("resumed");
  await act(`/api/loops/${id}/cancel`);
  const withBody = await act(`/api/loops/${id}/resume`, "POST", JSON.stringify({ now: true }));
  assert.equal(withBody.status, 400);
  assert.equal(((await withBody.json()) as { field: string }).field, "now");
  const resume = await act(`/api/loops/${id}/resume`);
  assert.equal(resume.status, 202, await resume.clone().text());
  const answer = (await resume.json()) as { outcome: string; queuePosition: number };
  assert.equal(answer.outcome, "queued");
  assert.equal(answer.queuePosition, 1);
  const queued = await lastEvent(id, "loop_queued");
  assert.deepEqual(queued?.data, { by: { via: "web", name: "loopback" }, command: "resume" });
  const twice = await act(`/api/loops/${id}/resume`);
  assert.equal(twice.status, 400);
  const list = (await (await act("/api/loops", "GET")).json()) as {
    loops: { id: string; status: string; queuePosition: number | null }[];
  };
  const listed = list.loops.find((loop) => loop.id === id);
  assert.equal(listed?.status, "queued");
  assert.equal(listed?.queuePosition, 1);
});

test("delete removes a loop that is not running; a running one is refused (409)", async () => {
  const id = await createdLoop("deleted");
  // This test process holds the loop's run lock, as a live controller would.
  const running = await store.acquireLock(id, currentLockOwner("test-run"));
  assert.equal(running.acquired, true);
  const busy = await act(`/api/loops/${id}`, "DELETE");
  assert.equal(busy.status, 409, await busy.clone().text());
  assert.ok(await store.findLoop(id));
  await store.releaseLock(id, "test-run");
  const removed = await act(`/api/loops/${id}?branch=true`, "DELETE");
  assert.equal(removed.status, 200, await removed.clone().text());
  assert.equal(await store.findLoop(id), undefined);
  assert.equal((await act(`/api/loops/${id}`, "GET")).status, 404);
  assert.equal((await act(`/api/loops/${id}`, "DELETE")).status, 404);
  const badQuery = await act(`/api/loops/${id}?branch=maybe`, "DELETE");
  assert.equal(badQuery.status, 400);
  assert.equal(((await badQuery.json()) as { field: string }).field, "branch");
});

test("submit: a spec's text becomes a queued loop with the web actor; the same name again is refused, nothing created", async () => {
  const spec = `name: submitted
goal: count.txt holds 1
repo: ./repo
maker: { engine: scripted, turns: [{ write: { count.txt: "1\\n" } }] }
gates: [{ id: count, kind: tests-pass, run: "grep -qx 1 count.txt" }]
`;
  const body = JSON.stringify({ spec, directory: sandbox.root, label: "submitted.yaml" });
  const answer = await act("/api/loops", "POST", body);
  assert.equal(answer.status, 201, await answer.clone().text());
  const submitted = (await answer.json()) as { loopId: string; name: string; queuePosition: number };
  assert.equal(submitted.name, "submitted");
  assert.ok(submitted.queuePosition >= 1);
  assert.deepEqual((await lastEvent(submitted.loopId, "loop_queued"))?.data, {
    by: { via: "web", name: "loopback" },
    command: "run",
  });
  const detail = (await (await act(`/api/loops/${submitted.loopId}`, "GET")).json()) as { status: string };
  assert.equal(detail.status, "queued");
  const loops = (await store.listLoops()).length;
  const again = await act("/api/loops", "POST", body);
  assert.equal(again.status, 400);
  assert.match(((await again.json()) as { error: string }).error, /already exists/);
  const broken = await act(
    "/api/loops",
    "POST",
    JSON.stringify({
      spec: spec.replace("name: submitted", "name: other").replace("tests-pass", "vibes"),
      directory: sandbox.root,
      label: "broken.yaml",
    }),
  );
  assert.equal(broken.status, 400);
  const problems = ((await broken.json()) as { problems: string[] }).problems;
  assert.match(problems.join("\n"), /^broken\.yaml:5: gates/m);
  assert.equal((await store.listLoops()).length, loops, "nothing was created");
});

test("schedules: listed with their next firing; removed by name with the secret, then 404", async () => {
  const path = await sandbox.spec(
    `name: nightly
goal: count.txt holds 1
repo: ./repo
schedule: { every: 30m }
maker: { engine: scripted, turns: [{ write: { count.txt: "1\\n" } }] }
gates: [{ id: count, kind: tests-pass, run: "grep -qx 1 count.txt" }]
`,
    `${sandbox.root}/nightly.yaml`,
  );
  // Registered as `run --detach` of a scheduled spec registers it.
  await registerSchedule(store, await loadSpecFile(path), path);
  const list = (await (await act("/api/schedules", "GET")).json()) as {
    schedules: { name: string; description: string; nextFiring?: { at: string } }[];
  };
  const nightly = list.schedules.find((schedule) => schedule.name === "nightly");
  assert.ok(nightly, JSON.stringify(list));
  assert.equal(nightly.description, "every 30m");
  assert.ok(nightly.nextFiring?.at);
  const unguarded = await server.app.request("http://127.0.0.1:4477/api/schedules/nightly", {
    method: "DELETE",
  });
  assert.equal(unguarded.status, 403);
  const removed = await act("/api/schedules/nightly", "DELETE");
  assert.equal(removed.status, 200, await removed.clone().text());
  assert.equal((await act("/api/schedules/nightly", "DELETE")).status, 404);
});

test("submit: a spec with a schedule registers the schedule (no loop queued); sent again, it replaces it, saying so", async () => {
  const spec = `name: hourly
goal: count.txt holds 1
repo: ./repo
schedule: { every: 1h }
maker: { engine: scripted, turns: [{ write: { count.txt: "1\\n" } }] }
gates: [{ id: count, kind: tests-pass, run: "grep -qx 1 count.txt" }]
`;
  const loops = (await store.listLoops()).length;
  const body = JSON.stringify({ spec, directory: sandbox.root, label: "hourly.yaml" });
  const answer = await act("/api/loops", "POST", body);
  assert.equal(answer.status, 201, await answer.clone().text());
  const registered = (await answer.json()) as {
    kind: string;
    name: string;
    replaced: boolean;
    nextFiringAt: string;
    message: string;
  };
  assert.equal(registered.kind, "schedule");
  assert.equal(registered.name, "hourly");
  assert.equal(registered.replaced, false);
  assert.ok(Date.parse(registered.nextFiringAt) > Date.now() + 59 * 60_000, registered.nextFiringAt);
  assert.match(registered.message, /registered, first firing/);
  assert.equal((await store.listLoops()).length, loops, "no loop is queued for a scheduled spec");
  const again = (await (await act("/api/loops", "POST", body)).json()) as {
    replaced: boolean;
    message: string;
  };
  assert.equal(again.replaced, true);
  assert.match(again.message, /replaced/);
  const list = (await (await act("/api/schedules", "GET")).json()) as { schedules: { name: string }[] };
  assert.equal(list.schedules.filter((schedule) => schedule.name === "hourly").length, 1);
});
