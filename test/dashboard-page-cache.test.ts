/**
 * The loop page and its live fragment are rendered, redacted and kept once per timeline change
 * (src/server/dashboard/page-cache.ts): an unchanged loop is answered the same bytes; a new event, a
 * secret in it included, is on the next answer, redacted; a page with a notice is never kept.
 */
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { createServer, type LoopwrightServer } from "../src/server/create-server.ts";
import { mountDashboard } from "../src/server/dashboard/mount-dashboard.ts";
import { createPageCache } from "../src/server/dashboard/page-cache.ts";
import { redactedBytes } from "../src/server/redact-answers.ts";
import { openStore } from "../src/store/open-store.ts";
import type { Store } from "../src/store/store.ts";
import { createSandbox, type Sandbox } from "./support/loop-sandbox.ts";

const origin = "http://127.0.0.1:4477";
// Holds `&` and `"`: its HTML-escaped form must be caught as well.
const late = `late&"key-${Math.random().toString(16).slice(2)}`;
let sandbox: Sandbox;
let store: Store;
let server: LoopwrightServer;
let loopId: string;

before(async () => {
  sandbox = await createSandbox();
  const spec = await sandbox.spec(`name: cached
goal: count.txt holds 3
repo: ./repo
maker: { engine: scripted, turns: [{ write: { count.txt: "1\\n" } }] }
gates: [{ id: count, kind: tests-pass, run: "grep -qx 3 count.txt" }]
budget: { maxIterations: 1 }
`);
  const run = await sandbox.cli(["run", spec]);
  assert.equal(run.code, 3, run.stdout + run.stderr);
  store = await openStore(sandbox.home);
  loopId = (await store.listLoops())[0].id;
  server = createServer({
    store,
    home: sandbox.home,
    port: 4477,
    env: { LATE_API_KEY: late },
    log: () => {},
    mount: (app, dependencies) => mountDashboard(app, dependencies),
  });
});
after(async () => {
  server?.close();
  await store?.close();
  await sandbox?.cleanup();
});

const get = async (path: string) => {
  const answer = await server.app.request(`${origin}${path}`);
  assert.equal(answer.status, 200, path);
  assert.match(answer.headers.get("content-type") ?? "", /^text\/html/);
  // The guard's and the secure headers' work is still done on a kept page.
  assert.equal(answer.headers.get("x-content-type-options"), "nosniff");
  return answer.text();
};

test("a secret that appears after the page was kept is redacted on the next answer (page and fragment)", async () => {
  for (const path of [`/loops/${loopId}`, `/loops/${loopId}/fragments/live`]) {
    const first = await get(path);
    assert.equal(await get(path), first, `${path}: an unchanged loop is answered the same page`);
    assert.doesNotMatch(first, /late&/);
  }
  // An owner's steering request quoting the secret, raw: the page shows the requested goal.
  await store.appendEvent(loopId, "steer_requested", {
    request: { goal: `use ${late} as the key` },
    by: { via: "cli", name: "tester" },
  });
  for (const path of [`/loops/${loopId}`, `/loops/${loopId}/fragments/live`]) {
    const after = await get(path);
    assert.match(after, /use \[redacted:LATE_API_KEY\] as the key/, path);
    assert.ok(!after.includes(late), path);
    assert.ok(!after.includes("late&amp;&quot;key"), `${path}: nor its HTML-escaped form`);
  }
  const notice = await get(`/loops/${loopId}?notice=${encodeURIComponent(`steering noted ${late}`)}`);
  assert.ok(!notice.includes(late) && !notice.includes("late&amp;&quot;key"), "a notice is redacted too");
  assert.match(notice, /steering noted \[redacted:LATE_API_KEY\]/);
  // A notice is one answer's: the page without it does not show it.
  assert.doesNotMatch(await get(`/loops/${loopId}`), /steering noted/);
});

test("the cache keeps at most its byte budget, dropping the least recently used page", () => {
  const cache = createPageCache(10);
  const bytes = (text: string) => redactedBytes((value) => value, text);
  cache.set("a", bytes("1234"));
  cache.set("b", bytes("5678"));
  assert.ok(cache.get("a"), "a was used last");
  cache.set("c", bytes("90ab"));
  assert.equal(cache.get("b"), undefined);
  assert.ok(cache.get("a") && cache.get("c"));
  assert.equal(cache.bytes, 8);
  cache.set("huge", bytes("x".repeat(11)));
  assert.equal(cache.get("huge"), undefined, "a page larger than the budget is not kept");
});
