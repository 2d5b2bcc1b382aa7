/**
 * The service's guard through hono's in-process request API: loopback reads open, actions protected
 * against cross-site requests and DNS rebinding (Host, Origin, the per-service secret), and token mode
 * (bearer header, login cookie) on any other address, which refuses to start without a token.
 */
import assert from "node:assert/strict";
import { hostname, networkInterfaces } from "node:os";
import { after, before, describe, test } from "node:test";
import { UsageError } from "../src/errors.ts";
import { createServer, type LoopwrightServer } from "../src/server/create-server.ts";
import { openStore } from "../src/store/open-store.ts";
import type { Store } from "../src/store/store.ts";
import { createSandbox, type Sandbox } from "./support/loop-sandbox.ts";

const secret = "per-service-secret-of-this-test";
const token = "0123456789abcdef-token-of-the-test";
let sandbox: Sandbox;
let store: Store;
let loopId: string;

before(async () => {
  sandbox = await createSandbox();
  const spec = await sandbox.spec(`name: guarded
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
});
after(async () => {
  await store?.close();
  await sandbox?.cleanup();
});

function loopbackServer(): LoopwrightServer {
  return createServer({ store, home: sandbox.home, port: 4477, secret, env: {}, log: () => {} });
}

const steer = (headers: Record<string, string>, url = `http://127.0.0.1:4477/api/loops/${loopId}/steer`) =>
  ({
    url,
    init: {
      method: "POST",
      headers: { "content-type": "application/json", ...headers },
      body: JSON.stringify({ budget: { maxIterations: 2 } }),
    },
  }) as const;

async function steersFiled(): Promise<number> {
  return (await store.readEvents(loopId)).filter((event) => event.type === "steer_requested").length;
}

describe("on loopback without a token", () => {
  test("reads are open to the bound host names; a forged Host is refused (DNS rebinding)", async () => {
    const server = loopbackServer();
    for (const host of ["127.0.0.1:4477", "localhost:4477", "[::1]:4477"]) {
      const answer = await server.app.request(`http://${host}/api/loops`);
      assert.equal(answer.status, 200, host);
    }
    for (const host of ["evil.example:4477", "127.0.0.1:80", "127.0.0.1.nip.io:4477"]) {
      const answer = await server.app.request(`http://${host}/api/loops`);
      assert.equal(answer.status, 403, host);
      assert.match(((await answer.json()) as { error: string }).error, /Host/);
    }
    server.close();
  });

  test("an action needs the secret, from the same origin, on the bound host; then it is filed with its actor", async () => {
    const server = loopbackServer();
    const before = await steersFiled();
    const refused: [string, Record<string, string>, string?][] = [
      ["no secret", {}],
      ["a wrong secret", { "x-loopwright-secret": "guess" }],
      ["another origin", { "x-loopwright-secret": secret, origin: "http://evil.example" }],
      ["another port's origin", { "x-loopwright-secret": secret, origin: "http://127.0.0.1:9999" }],
      ["a cross-site fetch", { "x-loopwright-secret": secret, "sec-fetch-site": "cross-site" }],
      [
        "a forged Host",
        { "x-loopwright-secret": secret },
        `http://evil.example:4477/api/loops/${loopId}/steer`,
      ],
    ];
    for (const [what, headers, url] of refused) {
      const { url: target, init } = steer(headers, url);
      const answer = await server.app.request(target, init);
      assert.equal(answer.status, 403, what);
      assert.ok(((await answer.json()) as { error: string }).error, what);
    }
    assert.equal(await steersFiled(), before, "nothing was filed");
    const { url, init } = steer({
      "x-loopwright-secret": secret,
      origin: "http://127.0.0.1:4477",
      "sec-fetch-site": "same-origin",
    });
    const accepted = await server.app.request(url, init);
    assert.equal(accepted.status, 202, await accepted.clone().text());
    const filed = (await store.readEvents(loopId)).filter((event) => event.type === "steer_requested").at(-1);
    assert.deepEqual(filed?.data.by, { via: "web", name: "loopback" });
    // A form posted by the dashboard's page carries the secret as a field.
    const form = await server.app.request(`http://127.0.0.1:4477/api/loops/${loopId}/steer`, {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded", origin: "http://127.0.0.1:4477" },
      body: new URLSearchParams({
        loopwright_secret: secret,
        goal: "count.txt holds 3, said from a form",
      }).toString(),
    });
    assert.equal(form.status, 202, await form.clone().text());
    const formWithout = await server.app.request(`http://127.0.0.1:4477/api/loops/${loopId}/steer`, {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded" },
      body: new URLSearchParams({ loopwright_secret: "nope", goal: "x" }).toString(),
    });
    assert.equal(formWithout.status, 403);
    server.close();
  });

  test("DELETE is an action too: refused without the secret, the loop stays", async () => {
    const server = loopbackServer();
    const answer = await server.app.request(`http://127.0.0.1:4477/api/loops/${loopId}`, {
      method: "DELETE",
    });
    assert.equal(answer.status, 403);
    assert.ok(await store.findLoop(loopId));
    server.close();
  });

  test("the session answers the secret only to a request on the bound host", async () => {
    const server = loopbackServer();
    const session = (await (await server.app.request("http://127.0.0.1:4477/api/session")).json()) as {
      secret: string;
      actor: unknown;
    };
    assert.equal(session.secret, secret);
    assert.deepEqual(session.actor, { via: "web", name: "loopback" });
    assert.equal((await server.app.request("http://rebound.example:4477/api/session")).status, 403);
    server.close();
  });

  test("without a secret given, each service makes its own random one", () => {
    const first = createServer({ store, home: sandbox.home, env: {} });
    const second = createServer({ store, home: sandbox.home, env: {} });
    assert.ok(first.guard.secret.length >= 32);
    assert.notEqual(first.guard.secret, second.guard.secret);
    first.close();
    second.close();
  });
});

describe("on another address", () => {
  test("the server refuses to start without a token, or with a short one", () => {
    assert.throws(() => createServer({ store, home: sandbox.home, host: "0.0.0.0", env: {} }), UsageError);
    assert.throws(
      () => createServer({ store, home: sandbox.home, host: "192.168.1.10", env: {} }),
      /needs a token/,
    );
    assert.throws(
      () => createServer({ store, home: sandbox.home, host: "0.0.0.0", token: "short", env: {} }),
      /at least 16/,
    );
    const fromEnvironment = createServer({
      store,
      home: sandbox.home,
      host: "0.0.0.0",
      env: { LOOPWRIGHT_TOKEN: token },
    });
    assert.equal(fromEnvironment.guard.tokenRequired, true);
    fromEnvironment.close();
  });

  test("every request carries the token: missing and wrong refused (401), right accepted", async () => {
    const server = createServer({
      store,
      home: sandbox.home,
      host: "0.0.0.0",
      port: 4477,
      token: { name: "alice", value: token },
      secret,
      env: {},
      allowHosts: ["192.168.1.10"],
    });
    const url = "http://192.168.1.10:4477/api/loops";
    assert.equal((await server.app.request(url)).status, 401);
    assert.equal((await server.app.request(url, { headers: { authorization: "Bearer nope" } })).status, 401);
    assert.equal(
      (await server.app.request(url, { headers: { authorization: `Bearer ${token}x` } })).status,
      401,
    );
    assert.equal(
      (await server.app.request(url, { headers: { authorization: `Bearer ${token}` } })).status,
      200,
    );
    assert.equal((await server.app.request("http://192.168.1.10:4477/api/openapi.json")).status, 401);
    // The bearer of the token may act without the page's secret (no browser sends that header cross-site).
    const { init } = steer({ authorization: `Bearer ${token}` });
    const acted = await server.app.request(`http://192.168.1.10:4477/api/loops/${loopId}/steer`, init);
    assert.equal(acted.status, 202, await acted.clone().text());
    const filed = (await store.readEvents(loopId)).filter((event) => event.type === "steer_requested").at(-1);
    assert.deepEqual(filed?.data.by, { via: "web", name: "alice" });
    server.close();
  });

  test("the login form sets an HttpOnly SameSite cookie; a cookie's actions still need the secret", async () => {
    const server = createServer({
      store,
      home: sandbox.home,
      host: "0.0.0.0",
      port: 4477,
      token,
      secret,
      env: {},
      allowHosts: ["192.168.1.10:4477"],
    });
    const base = "http://192.168.1.10:4477";
    const browser = await server.app.request(`${base}/`, { headers: { accept: "text/html" } });
    assert.equal(browser.status, 303);
    assert.equal(browser.headers.get("location"), "/login");
    const page = await server.app.request(`${base}/login`);
    assert.equal(page.status, 200);
    assert.match(await page.text(), /<form method="post"/);
    const login = (value: string) =>
      server.app.request(`${base}/login`, {
        method: "POST",
        headers: { "content-type": "application/x-www-form-urlencoded" },
        body: new URLSearchParams({ token: value }).toString(),
      });
    const wrong = await login("guess");
    assert.equal(wrong.status, 401);
    assert.equal(wrong.headers.get("set-cookie"), null);
    const right = await login(token);
    assert.equal(right.status, 303);
    const cookie = right.headers.get("set-cookie") ?? "";
    assert.match(cookie, /HttpOnly/);
    assert.match(cookie, /SameSite=Strict/);
    const pair = cookie.split(";")[0];
    assert.equal((await server.app.request(`${base}/api/loops`, { headers: { cookie: pair } })).status, 200);
    assert.equal(
      (await server.app.request(`${base}/api/loops`, { headers: { cookie: "loopwright_token=guess" } }))
        .status,
      401,
    );
    const withoutSecret = steer({ cookie: pair }, `${base}/api/loops/${loopId}/steer`);
    assert.equal((await server.app.request(withoutSecret.url, withoutSecret.init)).status, 403);
    const crossOrigin = steer(
      { cookie: pair, "x-loopwright-secret": secret, origin: "http://evil.example" },
      `${base}/api/loops/${loopId}/steer`,
    );
    assert.equal((await server.app.request(crossOrigin.url, crossOrigin.init)).status, 403);
    const withSecret = steer(
      { cookie: pair, "x-loopwright-secret": secret, origin: base },
      `${base}/api/loops/${loopId}/steer`,
    );
    assert.equal((await server.app.request(withSecret.url, withSecret.init)).status, 202);
    server.close();
  });

  test("token mode checks the Host too: the machine's names at the bound port, and --allow-host names", async () => {
    const bearer = { authorization: `Bearer ${token}` };
    const wildcard = createServer({
      store,
      home: sandbox.home,
      host: "0.0.0.0",
      port: 4477,
      token,
      env: {},
      allowHosts: ["dash.example.com", "proxy.example:8443", "plain.example:80"],
    });
    const status = async (server: typeof wildcard, host: string) =>
      (await server.app.request(`http://${host}/api/loops`, { headers: bearer })).status;
    // The machine's first non-loopback IPv4 address (a container may have none: loopback then).
    const external = Object.values(networkInterfaces())
      .flat()
      .find((entry) => entry?.family === "IPv4" && !entry.internal)?.address;
    const ownAddress = external ?? "127.0.0.1";
    for (const host of ["127.0.0.1:4477", "localhost:4477", `${hostname()}:4477`, `${ownAddress}:4477`]) {
      assert.equal(await status(wildcard, host), 200, host);
    }
    // An --allow-host name without a port is taken at any port (a proxy on 80 or 443); with one, at that one.
    for (const host of ["dash.example.com", "dash.example.com:443", "proxy.example:8443", "plain.example"]) {
      assert.equal(await status(wildcard, host), 200, host);
    }
    for (const host of [
      "evil.example:4477",
      "127.0.0.1:80",
      "proxy.example:4477",
      "plain.example:4477",
      `${ownAddress}.nip.io:4477`,
    ]) {
      const answer = await wildcard.app.request(`http://${host}/api/loops`, { headers: bearer });
      assert.equal(answer.status, 403, host);
      const error = ((await answer.json()) as { error: string }).error;
      assert.match(error, /unexpected Host/);
      // The refusal does not list the machine's addresses to whoever asks.
      if (external) assert.doesNotMatch(error.replace(host, ""), new RegExp(external.replaceAll(".", "\\.")));
    }
    // Refused before the token is looked at: a forged Host with no token is a 403, not a 401.
    assert.equal((await wildcard.app.request("http://evil.example:4477/api/loops")).status, 403);
    wildcard.close();

    const bound = createServer({ store, home: sandbox.home, host: "10.1.2.3", port: 4477, token, env: {} });
    assert.equal(await status(bound, "10.1.2.3:4477"), 200);
    assert.equal(await status(bound, "10.1.2.4:4477"), 403);
    assert.equal(await status(bound, `${hostname()}:4477`), 403);
    bound.close();

    assert.throws(
      () => createServer({ store, home: sandbox.home, host: "0.0.0.0", token, env: {}, allowHosts: ["a/b"] }),
      /--allow-host: 'a\/b'/,
    );
  });
});
