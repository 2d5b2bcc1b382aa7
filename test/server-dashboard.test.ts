/**
 * The dashboard mounted on the API's server (as `serve` mounts it): its pages behind the same guard and
 * redaction, its forms accepted with the page's secret and refused without it or from another site.
 */
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { createServer, type LoopwrightServer } from "../src/server/create-server.ts";
import { mountDashboard } from "../src/server/dashboard/mount-dashboard.ts";
import { openStore } from "../src/store/open-store.ts";
import type { Store } from "../src/store/store.ts";
import { createSandbox, type Sandbox } from "./support/loop-sandbox.ts";

const origin = "http://127.0.0.1:4477";
const planted = `pk-${Math.random().toString(16).slice(2)}-planted`;
let sandbox: Sandbox;
let store: Store;
let server: LoopwrightServer;
let loopId: string;

before(async () => {
  sandbox = await createSandbox();
  const spec = await sandbox.spec(`name: mounted
goal: count.txt holds 3; the key is ${planted}
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
    env: { PLANTED_API_KEY: planted },
    log: () => {},
    mount: (app, dependencies) => mountDashboard(app, dependencies),
  });
});
after(async () => {
  server?.close();
  await store?.close();
  await sandbox?.cleanup();
});

const post = (path: string, fields: Record<string, string>, headers: Record<string, string> = {}) =>
  server.app.request(`${origin}${path}`, {
    method: "POST",
    // A socket's request always carries Host; the dashboard's own check reads it.
    headers: {
      "content-type": "application/x-www-form-urlencoded",
      host: "127.0.0.1:4477",
      origin,
      ...headers,
    },
    body: new URLSearchParams(fields).toString(),
  });

test("the pages render behind the guard, redacted, with the service's secret in their forms", async () => {
  const home = await server.app.request(`${origin}/`);
  assert.equal(home.status, 200);
  assert.match(await home.text(), /mounted/);
  const page = await server.app.request(`${origin}/loops/${loopId}`);
  assert.equal(page.status, 200);
  const html = await page.text();
  assert.ok(html.includes(server.secret), "the forms embed the service's secret");
  assert.ok(!html.includes(planted), "a secret of the environment is not rendered");
  assert.equal((await server.app.request(`http://evil.example:4477/loops/${loopId}`)).status, 403);
});

test("a form carrying the secret acts; without it, with a wrong one, or from another site it is refused", async () => {
  const before = (await store.readEvents(loopId)).length;
  for (const [fields, headers] of [
    [{ goal: "count.txt holds 3" }, {}],
    [{ goal: "count.txt holds 3", loopwright_secret: "guess" }, {}],
    [{ goal: "count.txt holds 3", loopwright_secret: server.secret }, { origin: "http://evil.example" }],
  ] as [Record<string, string>, Record<string, string>][]) {
    const refused = await post(`/loops/${loopId}/steer`, fields, headers);
    assert.equal(refused.status, 403, JSON.stringify([fields, headers]));
  }
  assert.equal((await store.readEvents(loopId)).length, before, "nothing was filed");
  const accepted = await post(`/loops/${loopId}/steer`, {
    goal: "count.txt holds 3, steered from the page",
    loopwright_secret: server.secret,
  });
  assert.equal(accepted.status, 303, await accepted.clone().text());
  const filed = (await store.readEvents(loopId)).filter((event) => event.type === "steer_requested").at(-1);
  assert.deepEqual(filed?.data.by, { via: "web", name: "loopback" });
});
