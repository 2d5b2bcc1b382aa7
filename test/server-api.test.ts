/**
 * The HTTP API through hono's in-process request API, over a real store holding a real loop (run by
 * the CLI with scripted engines in a real git repository): every endpoint, bad input, ranged log reads,
 * redaction of the environment's secrets, and the OpenAPI document covering every route.
 */
import assert from "node:assert/strict";
import { readFile, rm, symlink } from "node:fs/promises";
import { after, before, describe, test } from "node:test";
import { createServer, type LoopwrightServer } from "../src/server/create-server.ts";
import { openStore } from "../src/store/open-store.ts";
import type { Store } from "../src/store/store.ts";
import { createSandbox, type Sandbox } from "./support/loop-sandbox.ts";

const origin = "http://127.0.0.1:4477";
const secretValue = `sk-live-${Math.random().toString(16).slice(2)}abcdef`;
const secret = "s3rvice-secret-for-tests";

let sandbox: Sandbox;
let store: Store;
let server: LoopwrightServer;
let loopId: string;

/** A request as a same-origin page sends it: the bound Host, and the secret on actions. */
function request(
  path: string,
  init: Omit<RequestInit, "headers"> & { headers?: Record<string, string> } = {},
) {
  const method = init.method ?? "GET";
  const headers: Record<string, string> = {
    ...(method === "GET" ? {} : { "x-loopwright-secret": secret, "content-type": "application/json" }),
    ...init.headers,
  };
  return server.app.request(`${origin}${path}`, { ...init, method, headers });
}

/** The log path of the last gate run on the timeline. */
async function lastLogPath(): Promise<string> {
  const ended = (await store.readEvents(loopId)).filter((event) => event.type === "gate_ended").at(-1);
  const result = ended?.data.result as { logPath?: string } | undefined;
  return result?.logPath ?? "";
}

before(async () => {
  sandbox = await createSandbox();
  // The loop runs without the secret in its environment, so its logs and briefs hold it unredacted:
  // only the server's redaction stands between it and an answer.
  const spec = await sandbox.spec(`name: counted
goal: |
  count.txt holds 2. The deploy key is ${secretValue}.
repo: ./repo
maker:
  engine: scripted
  turns:
    - write: { count.txt: "1\\n" }
    - write: { count.txt: "2\\n" }
verifier: { engine: scripted, turns: [{ verdict: auto }] }
gates: [{ id: count, kind: tests-pass, run: "seq 1 2000; echo using ${secretValue}; grep -qx 2 count.txt" }]
`);
  const run = await sandbox.cli(["run", spec]);
  assert.equal(run.code, 0, run.stdout + run.stderr);
  store = await openStore(sandbox.home);
  loopId = (await store.listLoops())[0].id;
  server = createServer({
    store,
    home: sandbox.home,
    port: 4477,
    secret,
    env: { DEPLOY_KEY: secretValue, PATH: process.env.PATH ?? "" },
    log: () => {},
  });
});

after(async () => {
  server?.close();
  await store?.close();
  await sandbox?.cleanup();
});

describe("reading", () => {
  test("the loops list and one loop's detail, by id and by name", async () => {
    const list = await request("/api/loops");
    assert.equal(list.status, 200);
    assert.equal(list.headers.get("x-frame-options"), "SAMEORIGIN");
    assert.equal(list.headers.get("x-content-type-options"), "nosniff");
    const body = (await list.json()) as { loops: { id: string; name: string }[] };
    assert.deepEqual(
      body.loops.map((loop) => loop.name),
      ["counted"],
    );
    for (const reference of [loopId, "counted"]) {
      const detail = await request(`/api/loops/${reference}`);
      assert.equal(detail.status, 200);
      assert.equal(((await detail.json()) as { id: string }).id, loopId);
    }
    const missing = await request("/api/loops/nothing-here");
    assert.equal(missing.status, 404);
    assert.match(((await missing.json()) as { error: string }).error, /nothing-here/);
  });

  test("iterations, a brief, a diff per file, the report in Markdown and JSON", async () => {
    const iterations = (await (await request(`/api/loops/${loopId}/iterations`)).json()) as {
      iterations: { iteration: number; outcome: string }[];
    };
    assert.deepEqual(
      iterations.iterations.map((iteration) => iteration.outcome),
      ["failed", "verified"],
    );
    const brief = await request(`/api/loops/${loopId}/iterations/2/brief`);
    assert.equal(brief.status, 200);
    assert.match(((await brief.json()) as { brief: string }).brief, /count\.txt holds 2/);
    const diff = (await (await request(`/api/loops/${loopId}/iterations/2/diff`)).json()) as {
      commit: string;
      files: { path: string; patch: string }[];
    };
    assert.deepEqual(
      diff.files.map((file) => file.path),
      ["count.txt"],
    );
    assert.match(diff.files[0].patch, /^\+2$/m);
    const oneFile = await request(`/api/loops/${loopId}/iterations/2/diff?file=README.md`);
    assert.equal(oneFile.status, 400);
    assert.equal(((await oneFile.json()) as { field: string }).field, "file");
    const iteration = (await (await request(`/api/loops/${loopId}/iterations/2`)).json()) as {
      number?: number;
    };
    assert.ok(iteration);
    const logs = (await (await request(`/api/loops/${loopId}/iterations/2/gates`)).json()) as {
      logs: { gate: string; sizeBytes: number }[];
    };
    assert.ok(logs.logs.some((log) => log.gate === "count" && log.sizeBytes > 8000));
    const markdown = await request(`/api/loops/${loopId}/report`);
    assert.match(await markdown.text(), /^# Loop counted/);
    const data = (await (await request(`/api/loops/${loopId}/report.json`)).json()) as { stopReason: string };
    assert.equal(data.stopReason, "verified");
    const noSuchIteration = await request(`/api/loops/${loopId}/iterations/9/brief`);
    assert.equal(noSuchIteration.status, 400);
    assert.equal(((await noSuchIteration.json()) as { field: string }).field, "iteration");
    const notANumber = await request(`/api/loops/${loopId}/iterations/two/brief`);
    assert.equal(notANumber.status, 400);
    assert.equal(((await notANumber.json()) as { field: string }).field, "iteration");
  });

  test("the timeline pages by global event id: every event once, in order", async () => {
    const all = await store.readEvents(loopId);
    const seen: number[] = [];
    let after = 0;
    for (let pages = 0; pages < 100; pages++) {
      const page = (await (await request(`/api/loops/${loopId}/timeline?after=${after}&limit=7`)).json()) as {
        events: { id: number }[];
        nextAfter: number;
        hasMore: boolean;
      };
      assert.ok(page.events.length <= 7);
      seen.push(...page.events.map((event) => event.id));
      if (!page.hasMore) break;
      after = page.nextAfter;
    }
    assert.deepEqual(
      seen,
      all.map((event) => event.id),
    );
    const bad = await request(`/api/loops/${loopId}/timeline?limit=0`);
    assert.equal(bad.status, 400);
    assert.equal(((await bad.json()) as { field: string }).field, "limit");
    const unknown = await request(`/api/loops/${loopId}/timeline?colour=red`);
    assert.equal(unknown.status, 400);
    assert.equal(((await unknown.json()) as { field: string }).field, "colour");
  });
});

describe("gate logs", () => {
  const log = (query = "", headers: Record<string, string> = {}) =>
    request(`/api/loops/${loopId}/iterations/2/gates/count/log${query}`, { headers });

  test("whole, first bytes, a middle range, a suffix, offset/length, and past the end (416)", async () => {
    const whole = await log();
    assert.equal(whole.status, 200);
    const text = await whole.text();
    assert.match(text, /\n1\n2\n3\n/);
    const size = Buffer.byteLength(text);
    const first = await log("", { range: "bytes=0-9" });
    assert.equal(first.status, 206);
    assert.equal(first.headers.get("content-range"), `bytes 0-9/${size}`);
    assert.equal(await first.text(), text.slice(0, 10));
    const middle = await log("", { range: "bytes=1000-1099" });
    assert.equal(middle.status, 206);
    assert.equal(await middle.text(), Buffer.from(text).subarray(1000, 1100).toString());
    const suffix = await log("", { range: "bytes=-20" });
    assert.equal(
      await suffix.text(),
      Buffer.from(text)
        .subarray(size - 20)
        .toString(),
    );
    const byQuery = await log("?offset=1000&length=100");
    assert.equal(byQuery.status, 206);
    assert.equal(await byQuery.text(), Buffer.from(text).subarray(1000, 1100).toString());
    const pastTheEnd = await log("", { range: `bytes=${size}-` });
    assert.equal(pastTheEnd.status, 416);
    assert.equal(pastTheEnd.headers.get("content-range"), `bytes */${size}`);
    assert.equal((await log(`?offset=${size + 5}`)).status, 416);
    const garbled = await log("", { range: "lines=1-2" });
    assert.equal(garbled.status, 400);
    assert.equal(((await garbled.json()) as { field: string }).field, "range");
    const negative = await log("?offset=-1");
    assert.equal(((await negative.json()) as { field: string }).field, "offset");
    const noGate = await request(`/api/loops/${loopId}/iterations/2/gates/lint/log`);
    assert.equal(noGate.status, 400);
    assert.equal(((await noGate.json()) as { field: string }).field, "gate");
  });

  test("a log replaced by a symbolic link to a file elsewhere is refused, not followed", async () => {
    const path = await lastLogPath();
    assert.ok(path, "the gate's log path is on the timeline");
    const original = await readFile(path);
    const elsewhere = `${sandbox.root}/elsewhere.txt`;
    await (await import("node:fs/promises")).writeFile(elsewhere, "private\n");
    await rm(path);
    await symlink(elsewhere, path);
    try {
      const answer = await log();
      assert.equal(answer.status, 403);
      assert.match(((await answer.json()) as { error: string }).error, /symbolic link/);
      assert.equal((await log("", { range: "bytes=0-3" })).status, 403);
    } finally {
      await rm(path);
      await (await import("node:fs/promises")).writeFile(path, original);
    }
  });
});

describe("secrets from the environment never appear in an answer", () => {
  test("not in a gate log (whole or ranged), a brief, the detail, the report, or the timeline", async () => {
    const path = await lastLogPath();
    assert.ok((await readFile(path, "utf8")).includes(secretValue), "the log on disk holds the secret");
    const answers = [
      await request(`/api/loops/${loopId}/iterations/2/gates/count/log`),
      await request(`/api/loops/${loopId}/iterations/1/brief`),
      await request(`/api/loops/${loopId}`),
      await request(`/api/loops/${loopId}/report`),
      await request(`/api/loops/${loopId}/report.json`),
      await request(`/api/loops/${loopId}/timeline?limit=1000`),
    ];
    for (const answer of answers) {
      assert.equal(answer.status, 200, answer.url);
      const text = await answer.text();
      assert.ok(!text.includes(secretValue), `${answer.url} holds the secret`);
      assert.ok(!text.includes(secretValue.slice(0, 12)), `${answer.url} holds part of the secret`);
    }
    const log = await (await request(`/api/loops/${loopId}/iterations/2/gates/count/log`)).text();
    assert.match(log, /using \[redacted:DEPLOY_KEY\]/);
    const brief = (
      (await (await request(`/api/loops/${loopId}/iterations/1/brief`)).json()) as { brief: string }
    ).brief;
    assert.match(brief, /The deploy key is \[redacted:DEPLOY_KEY\]/);
    // A range that cuts through where the secret was: never half of it.
    const whole = Buffer.from(log);
    const at = whole.indexOf("using ");
    for (const start of [at + 6, at + 10]) {
      const part = await request(`/api/loops/${loopId}/iterations/2/gates/count/log`, {
        headers: { range: `bytes=${start}-${start + 30}` },
      });
      assert.equal(await part.text(), whole.subarray(start, start + 31).toString());
    }
  });
});

describe("a secret straddling the boundary of two adjacent ranges", () => {
  test("is never revealed by the two answers, wherever the boundary falls in it", async () => {
    const url = `/api/loops/${loopId}/iterations/2/gates/count/log`;
    const raw = await readFile(await lastLogPath());
    const whole = Buffer.from(await (await request(url)).text());
    const redactedAt = whole.indexOf("[redacted:DEPLOY_KEY]");
    assert.ok(redactedAt > 0, "the answer holds the secret's place");
    // Boundaries inside the secret as it lies on disk (where a cut of the raw log would split it) and
    // inside its redacted place (where a cut of the answer falls).
    const rawAt = raw.indexOf(secretValue);
    assert.ok(rawAt > 0, "the log on disk holds the secret");
    const boundaries = [1, 4, 8, secretValue.length - 1].flatMap((into) => [rawAt + into, redactedAt + into]);
    const pieces = Array.from({ length: secretValue.length - 5 }, (_, at) => secretValue.slice(at, at + 6));
    for (const boundary of boundaries) {
      const first = await request(url, { headers: { range: `bytes=0-${boundary - 1}` } });
      const second = await request(url, { headers: { range: `bytes=${boundary}-` } });
      assert.equal(first.status, 206);
      assert.equal(second.status, 206);
      const joined = Buffer.concat([
        Buffer.from(await first.arrayBuffer()),
        Buffer.from(await second.arrayBuffer()),
      ]).toString();
      assert.ok(!joined.includes(secretValue), `the ranges split at ${boundary} join into the secret`);
      for (const piece of pieces)
        assert.ok(!joined.includes(piece), `the ranges split at ${boundary} show '${piece}' of the secret`);
      assert.equal(joined, whole.toString(), "adjacent ranges join into the whole (redacted) log");
    }
  });
});

describe("bad bodies", () => {
  test("steer: unknown field, wrong type, nothing to change, an invalid gate: 400 naming the field, nothing filed", async () => {
    const before = (await store.readEvents(loopId)).length;
    const cases: [unknown, string][] = [
      [{ colour: "red" }, "colour"],
      [{ goal: 3 }, "goal"],
      [{ budget: { maxIterations: [1] } }, "budget.maxIterations"],
      [{ removeGates: "count" }, "removeGates"],
    ];
    for (const [body, field] of cases) {
      const answer = await request(`/api/loops/${loopId}/steer`, {
        method: "POST",
        body: JSON.stringify(body),
      });
      assert.equal(answer.status, 400, JSON.stringify(body));
      const error = (await answer.json()) as { error: string; field?: string };
      assert.equal(error.field, field, JSON.stringify(error));
    }
    const notJson = await request(`/api/loops/${loopId}/steer`, { method: "POST", body: "{goal:" });
    assert.equal(notJson.status, 400);
    assert.equal(((await notJson.json()) as { field: string }).field, "body");
    const empty = await request(`/api/loops/${loopId}/steer`, { method: "POST", body: "{}" });
    assert.equal(empty.status, 400);
    assert.equal((await store.readEvents(loopId)).length, before, "nothing was filed");
  });

  test("submit: a spec with problems is refused with every problem listed, and no loop is created", async () => {
    const answer = await request("/api/loops", {
      method: "POST",
      body: JSON.stringify({ spec: "name: broken\ngoal: 3\n", directory: sandbox.repo }),
    });
    assert.equal(answer.status, 400);
    const error = (await answer.json()) as { field: string; problems: string[] };
    assert.equal(error.field, "spec");
    assert.ok(error.problems.length > 0);
    assert.match(error.problems[0], /^loop\.yaml:\d+: /);
    const relative = await request("/api/loops", {
      method: "POST",
      body: JSON.stringify({ spec: "name: x\n", directory: "repo" }),
    });
    assert.equal(((await relative.json()) as { field: string }).field, "directory");
    assert.equal((await store.listLoops()).length, 1);
  });

  test("a body over 2 MiB is refused (413) before it is read whole", async () => {
    const answer = await request("/api/loops", {
      method: "POST",
      body: JSON.stringify({ spec: "x".repeat(3 * 1024 * 1024), directory: sandbox.repo }),
    });
    assert.equal(answer.status, 413);
    assert.equal(((await answer.json()) as { field: string }).field, "body");
  });
});

describe("OpenAPI", () => {
  test("every JSON answer of a read matches the schema its route documents", async () => {
    const urls: Record<string, string> = {
      "/api/session": "/api/session",
      "/api/loops": "/api/loops",
      "/api/schedules": "/api/schedules",
      "/api/loops/:id": `/api/loops/${loopId}`,
      "/api/loops/:id/iterations": `/api/loops/${loopId}/iterations`,
      "/api/loops/:id/iterations/:iteration": `/api/loops/${loopId}/iterations/1`,
      "/api/loops/:id/timeline": `/api/loops/${loopId}/timeline`,
      "/api/loops/:id/iterations/:iteration/brief": `/api/loops/${loopId}/iterations/1/brief`,
      "/api/loops/:id/iterations/:iteration/diff": `/api/loops/${loopId}/iterations/2/diff`,
      "/api/loops/:id/iterations/:iteration/gates": `/api/loops/${loopId}/iterations/0/gates`,
      "/api/loops/:id/report.json": `/api/loops/${loopId}/report.json`,
    };
    const reads = server.routes.filter((route) => route.method === "get" && route.answer.kind === "json");
    for (const route of reads) {
      if (route.path === "/api/openapi.json") continue;
      const url = urls[route.path];
      assert.ok(url, `no example URL for ${route.path}`);
      const answer = await request(url);
      assert.equal(answer.status, 200, url);
      if (route.answer.kind !== "json") continue;
      const parsed = route.answer.schema.safeParse(await answer.json());
      assert.ok(parsed.success, `${url}: ${parsed.error?.message ?? ""}`);
    }
  });

  test("the document lists every route of the API with its schemas", async () => {
    const answer = await request("/api/openapi.json");
    assert.equal(answer.status, 200);
    const document = (await answer.json()) as {
      openapi: string;
      paths: Record<string, Record<string, { responses: Record<string, unknown>; requestBody?: unknown }>>;
    };
    assert.equal(document.openapi, "3.1.0");
    const registered = server.app.routes
      .filter((route) => route.path.startsWith("/api/") && route.method !== "ALL")
      .map((route) => `${route.method.toLowerCase()} ${route.path.replace(/:(\w+)/g, "{$1}")}`);
    assert.ok(registered.length >= 15, registered.join(", "));
    for (const route of registered) {
      const [method, path] = route.split(" ");
      const operation = document.paths[path]?.[method];
      assert.ok(operation, `${route} is not in the OpenAPI document`);
      assert.ok(Object.keys(operation.responses).length > 0, `${route} documents no answer`);
      if (method === "post") assert.ok(operation.requestBody, `${route} documents no body`);
    }
    const documented = Object.entries(document.paths).flatMap(([path, methods]) =>
      Object.keys(methods).map((method) => `${method} ${path}`),
    );
    assert.deepEqual(documented.sort(), [...new Set(registered)].sort());
  });
});
