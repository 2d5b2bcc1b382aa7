/**
 * The dashboard's pages through hono's in-process request API, over a real store holding loops the real
 * CLI ran (scripted engines, real git, real gates): what each page shows, the owner's actions with their
 * protections and the CLI's validation messages, a new loop from spec text, and no secret in any page.
 */
import assert from "node:assert/strict";
import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import { after, before, test } from "node:test";
import type { Hono } from "hono";
import { loadSpecFile } from "../src/core/spec-file.ts";
import { createServer, type LoopwrightServer } from "../src/server/create-server.ts";
import { mountDashboard } from "../src/server/dashboard/mount-dashboard.ts";
import { registerSchedule } from "../src/service/schedules/register-schedule.ts";
import { openStore } from "../src/store/open-store.ts";
import type { Store } from "../src/store/store.ts";
import { createSandbox, type Sandbox } from "./support/loop-sandbox.ts";

const secretValue = "s3cr3t&<value>-9f8e7d";
const secret = "page-secret-for-tests";
const origin = "http://127.0.0.1:4477";
let sandbox: Sandbox;
let store: Store;
let app: Hono;
let server: LoopwrightServer;
let loopId: string;

before(async () => {
  sandbox = await createSandbox({
    "README.md": "# pages\n",
    "answer.txt": "0\n",
    "notes.txt": `key ${secretValue}\n`,
  });
  const spec = await sandbox.spec(`name: pages
goal: answer.txt says 42 (the key is ${JSON.stringify(secretValue).slice(1, -1)})
repo: ./repo
maker:
  engine: scripted
  turns:
    - { write: { answer.txt: "41\\n" }, say: "I wrote the answer: 42, all tests pass" }
    - { write: { answer.txt: "42\\n" }, say: "Fixed the answer for real" }
verifier: { engine: scripted, turns: [{ verdict: auto }] }
gates:
  - { id: answer, kind: tests-pass, run: "echo checking answer.txt; grep -qx 42 answer.txt || { echo 'not ok 1 - answer is 42'; exit 1; }" }
  - { id: reviewed, kind: agent-check, assert: "answer.txt holds the answer" }
budget: { maxIterations: 3 }
`);
  const run = await sandbox.cli(["run", spec]);
  assert.equal(run.code, 0, run.stdout + run.stderr);
  store = await openStore(sandbox.home);
  loopId = (await store.findLoop("pages"))?.id ?? "";
  server = createServer({
    store,
    home: sandbox.home,
    secret,
    env: { DASHBOARD_TEST_TOKEN: secretValue },
    mount: (app, dependencies) => mountDashboard(app, { ...dependencies, specFolder: sandbox.root }),
  });
  app = server.app;
});

after(async () => {
  server?.close();
  await store?.close();
  await sandbox?.cleanup();
});

async function get(path: string): Promise<{ status: number; text: string }> {
  const response = await app.request(`http://127.0.0.1:4477${path}`);
  return { status: response.status, text: await response.text() };
}

async function post(
  path: string,
  fields: Record<string, string | string[]>,
  headers: Record<string, string> = { origin },
  base = "http://127.0.0.1:4477",
): Promise<Response> {
  const body = new URLSearchParams();
  for (const [name, value] of Object.entries(fields))
    for (const entry of Array.isArray(value) ? value : [value]) body.append(name, entry);
  return app.request(`${base}${path}`, {
    method: "POST",
    body,
    headers: { "content-type": "application/x-www-form-urlencoded", host: "127.0.0.1:4477", ...headers },
  });
}

test("the loops page lists the loop with its status, iterations against the cap, cost and outcome strip", async () => {
  const page = await get("/");
  assert.equal(page.status, 200);
  assert.match(page.text, /<a href="\/loops\/pages-[0-9a-f]+">pages<\/a>/);
  assert.match(page.text, /status-verified">stopped<\/span> <span class="phase">verified/);
  assert.match(page.text, /2 \/ 3/);
  assert.match(page.text, /of \$25\.00\/day/);
  assert.match(page.text, /class="cell outcome-failed"[^>]*title="iteration 1: failed"/);
  assert.match(page.text, /class="cell outcome-verified"[^>]*title="iteration 2: verified"/);
  assert.match(page.text, /data-live-events="\/api\/events"/);
  const fragment = await get("/fragments/loops");
  assert.doesNotMatch(fragment.text, /<html/);
  assert.match(fragment.text, /pages/);
});

test("the glass box shows each iteration: brief, claimed vs verified, commit, gates against the baseline, verdict, charts", async () => {
  const page = await get(`/loops/${loopId}`);
  assert.equal(page.status, 200);
  const text = page.text;
  assert.match(text, /id="iteration-1"/);
  assert.match(text, /id="iteration-2"/);
  assert.match(text, /id="iteration-0"/, "the baseline is on the timeline");
  // Claimed vs verified: the maker's own words beside what the gates found.
  assert.match(text, /<pre class="account">I wrote the answer: 42, all tests pass<\/pre>/);
  assert.match(
    text,
    /<div class="verified"><h4>Verified<\/h4><ul class="gate-standings"><li><span class="badge status-fail">fail<\/span> answer/,
  );
  assert.match(text, /Brief as sent/);
  assert.match(text, /<pre class="brief">[^<]*answer.txt says 42/);
  assert.match(text, /href="\/loops\/[^"]+\/iterations\/1\/diff"/);
  assert.match(text, /href="\/loops\/[^"]+\/iterations\/1\/gates\/answer\/grade\/log"/);
  assert.match(text, /base commit had 1 failing|red on the base commit/);
  assert.match(text, /overall: pass/);
  // The verifier's evidence opens the cited file at the graded commit.
  assert.match(text, /href="\/loops\/[^"]+\/files\/[0-9a-f]{40}\?path=answer\.txt/);
  assert.match(text, /Cost per iteration/);
  assert.match(text, /Time per phase/);
  assert.match(text, /Failing tests per iteration/);
  assert.match(text, /<svg viewBox/);
  assert.match(text, /stopped: <strong>verified<\/strong>/);
  assert.match(text, new RegExp(`name="loopwright_secret" value="${secret}"`));
});

test("a gate log has line anchors; a large log is read a page of lines at a time", async () => {
  const log = await get(`/loops/${loopId}/iterations/1/gates/answer/grade/log`);
  assert.equal(log.status, 200);
  assert.match(log.text, /<span class="line" id="L3"><a class="number" href="#L3">3<\/a>checking answer.txt/);
  assert.match(log.text, /id="L4"><a class="number" href="#L4">4<\/a>not ok 1 - answer is 42/);
  // The failure digest heads the log; its references to log lines are anchors on the page.
  assert.match(log.text, /<section id="digest"><h2>Failure digest<\/h2><pre class="digest">/);
  assert.match(log.text, /1\. answer is 42 \(<a href="#L4">answer\.log:4<\/a>\)/);
  const loopPage = await get(`/loops/${loopId}`);
  assert.match(
    loopPage.text,
    /href="\/loops\/[^"]+\/iterations\/1\/gates\/answer\/grade\/log#digest">digest<\/a>/,
  );
  const baseline = await get(`/loops/${loopId}/iterations/0/gates/answer/baseline/log`);
  assert.equal(baseline.status, 200);
  // A big log: only the asked range is rendered.
  const events = await store.readEvents(loopId);
  const graded = events.find(
    (event) => event.type === "gate_ended" && (event.data.result as { phase: string }).phase === "grade",
  );
  assert.ok(graded);
  const logPath = (graded.data.result as { logPath: string }).logPath;
  await writeFile(logPath, Array.from({ length: 5000 }, (_, index) => `line ${index + 1}`).join("\n"));
  const second = await get(`/loops/${loopId}/iterations/1/gates/answer/grade/log?from=2001`);
  assert.match(second.text, /Lines 2001–4000 of 5000/);
  assert.match(second.text, /id="L2001"/);
  assert.doesNotMatch(second.text, /id="L2000"|id="L4001"/);
  assert.equal((await get(`/loops/${loopId}/iterations/1/gates/nope/grade/log`)).status, 404);
});

test("a log line cut at the long-line limit is redacted first: no half of a secret shows", async () => {
  const graded = (await store.readEvents(loopId)).find(
    (event) => event.type === "gate_ended" && (event.data.result as { phase: string }).phase === "grade",
  );
  assert.ok(graded);
  const logPath = (graded.data.result as { logPath: string }).logPath;
  // The secret straddles character 4000, where a long line is cut.
  await writeFile(logPath, `first\n${"x".repeat(3990)}${secretValue}${"y".repeat(100)}\nlast\r\n`);
  const page = await get(`/loops/${loopId}/iterations/1/gates/answer/grade/log`);
  assert.equal(page.status, 200);
  assert.match(page.text, /Lines 1–3 of 3/);
  assert.match(page.text, /more characters cut\)/);
  assert.ok(!page.text.includes("s3cr3t"), "the page shows the start of the secret");
  assert.match(page.text, /id="L3"><a class="number" href="#L3">3<\/a>last\n/);
});

test("the diff page shows the iteration's change per file; the file page reads a commit through git", async () => {
  const diff = await get(`/loops/${loopId}/iterations/2/diff`);
  assert.equal(diff.status, 200);
  assert.match(diff.text, /<code>answer.txt<\/code><\/a> modified/);
  assert.match(
    diff.text,
    /<tr class="removed"><td class="number">1<\/td><td class="number"><\/td><td><code>-0<\/code>/,
  );
  assert.match(
    diff.text,
    /<tr class="added"><td class="number"><\/td><td class="number">1<\/td><td><code>\+42<\/code>/,
  );
  const loopPage = await get(`/loops/${loopId}`);
  const fileLink =
    /href="(\/loops\/[^"]+\/files\/[0-9a-f]{40}\?path=answer\.txt)[^"]*"/.exec(loopPage.text)?.[1] ?? "";
  const file = await get(fileLink.replaceAll("&amp;", "&"));
  assert.equal(file.status, 200);
  assert.match(file.text, /id="L1"><a class="number" href="#L1">1<\/a>42/);
  const sha = /files\/([0-9a-f]{40})/.exec(fileLink)?.[1];
  assert.equal((await get(`/loops/${loopId}/files/${sha}?path=../../etc/passwd`)).status, 404);
  assert.equal((await get(`/loops/${loopId}/files/${"0".repeat(40)}?path=answer.txt`)).status, 404);
  assert.equal((await get(`/loops/${loopId}/files/${sha}?path=missing.txt`)).status, 404);
});

test("no secret from the environment appears in any page, raw or escaped", async () => {
  const loopPage = await get(`/loops/${loopId}`);
  const sha = /files\/([0-9a-f]{40})/.exec(loopPage.text)?.[1];
  const pages = [
    "/",
    "/fragments/loops",
    `/loops/${loopId}`,
    `/loops/${loopId}/fragments/live`,
    `/loops/${loopId}/iterations/1/brief`,
    `/loops/${loopId}/files/${sha}?path=notes.txt`,
  ];
  const escaped = secretValue.replaceAll("&", "&amp;").replaceAll("<", "&lt;").replaceAll(">", "&gt;");
  for (const path of pages) {
    const page = await get(path);
    assert.equal(page.status, 200, path);
    assert.ok(!page.text.includes(secretValue), `${path} shows the secret`);
    assert.ok(!page.text.includes(escaped), `${path} shows the escaped secret`);
    assert.ok(!page.text.includes("9f8e7d"), `${path} shows part of the secret`);
  }
  assert.match(
    (await get(`/loops/${loopId}/files/${sha}?path=notes.txt`)).text,
    /\[redacted:DASHBOARD_TEST_TOKEN\]/,
  );
});

test("actions need the page's secret, this server's Host and no foreign Origin", async () => {
  const fields = { loopwright_secret: secret, budget_maxIterations: "5" };
  for (const [label, response] of [
    ["no secret", await post(`/loops/${loopId}/steer`, { budget_maxIterations: "5" })],
    ["a wrong secret", await post(`/loops/${loopId}/steer`, { ...fields, loopwright_secret: "guess" })],
    ["a foreign origin", await post(`/loops/${loopId}/steer`, fields, { origin: "http://evil.example" })],
    [
      "a rebinding host",
      await post(
        `/loops/${loopId}/steer`,
        fields,
        { origin: "http://evil.example:4477", host: "evil.example:4477" },
        "http://evil.example:4477",
      ),
    ],
    ["an opaque origin", await post(`/loops/${loopId}/steer`, fields, { origin: "null" })],
    ["a cross-site form", await post(`/loops/${loopId}/steer`, fields, { "sec-fetch-site": "cross-site" })],
  ] as const) {
    assert.equal(response.status, 403, label);
  }
  const events = await store.readEvents(loopId);
  assert.equal(events.filter((event) => event.type === "steer_requested").length, 0, "nothing was filed");
});

test("steering from the form: the CLI's validation messages, then a request recorded with its actor", async () => {
  const verified = await post(`/loops/${loopId}/steer`, {
    loopwright_secret: secret,
    budget_maxIterations: "5",
  });
  assert.equal(verified.status, 400);
  assert.match(await verified.text(), /is verified and finished: steering would never apply/);

  const sandboxSpec = await sandbox.spec(
    `name: steerable
goal: count.txt holds 3
repo: ./repo
maker: { engine: scripted, turns: [{ write: { count.txt: "1\\n" } }] }
gates: [{ id: count, kind: tests-pass, run: "grep -qx 3 count.txt" }]
budget: { maxIterations: 1 }
`,
    join(sandbox.root, "steerable.yaml"),
  );
  const run = await sandbox.cli(["run", sandboxSpec]);
  assert.equal(run.code, 3, run.stdout + run.stderr);
  const steerable = (await store.findLoop("steerable"))?.id ?? "";
  const cases: [Record<string, string | string[]>, RegExp][] = [
    [{ add_gate: "{ id: lint, kind: lint-clean }" }, /--add-gate: run: required for kind lint-clean/],
    [
      { add_gate: "{ id: count, kind: tests-pass, run: x }" },
      /--add-gate: a gate &#39;count&#39; already exists/,
    ],
    [{ add_gate: "{ id: [" }, /--add-gate: not YAML/],
    [{ remove_gate: "nope" }, /no gate &#39;nope&#39; in loop steerable/],
    [{ budget_maxIterations: "-1" }, /--budget: maxIterations: /],
    [{ budget_wallClockPerIteration: "soon" }, /--budget: wallClockPerIteration: not a duration/],
    [{}, /nothing to change/],
  ];
  for (const [fields, message] of cases) {
    const response = await post(`/loops/${steerable}/steer`, { loopwright_secret: secret, ...fields });
    const text = await response.text();
    assert.equal(response.status, 400, JSON.stringify(fields));
    assert.match(text, message);
    assert.match(text, /class="form-error"/);
  }
  // The typed value is shown again next to the message.
  const kept = await post(`/loops/${steerable}/steer`, {
    loopwright_secret: secret,
    add_gate: "{ id: lint, kind: lint-clean }",
  });
  assert.match(await kept.text(), />\{ id: lint, kind: lint-clean \}<\/textarea>/);
  assert.equal(
    (await store.readEvents(steerable)).filter((event) => event.type === "steer_requested").length,
    0,
  );

  const edited = await post(`/loops/${steerable}/steer`, {
    loopwright_secret: secret,
    budget_maxIterations: "2",
    edit_gate: "count",
    edit_gate_yaml: '{ id: count, kind: tests-pass, run: "grep -qx 1 count.txt" }',
  });
  assert.equal(edited.status, 303);
  assert.match(edited.headers.get("location") ?? "", /notice=steering%20filed/);
  const filed = (await store.readEvents(steerable)).filter((event) => event.type === "steer_requested");
  assert.equal(filed.length, 1);
  assert.deepEqual(filed[0].data.by, { via: "web", name: "loopback" });
  assert.deepEqual((filed[0].data.request as { removeGates: string[] }).removeGates, ["count"]);
  assert.deepEqual((filed[0].data.request as { budget: unknown }).budget, { maxIterations: 2 });
  const page = await get(`/loops/${steerable}`);
  assert.match(page.text, /steering requested by <span class="actor">web: loopback<\/span>/);
});

test("a new loop from pasted text: problems as file:line: field: message, nothing created; then a valid one", async () => {
  const before = (await store.listLoops()).length;
  const bad = await post("/loops", {
    loopwright_secret: secret,
    label: "pasted.yaml",
    folder: sandbox.root,
    spec: "name: Bad Name\ngoal: x\nrepo: ./repo\nmaker: { engine: scripted, turns: [{}] }\ngates: [{ id: t, kind: tests-pass }]\n",
  });
  assert.equal(bad.status, 400);
  const text = await bad.text();
  assert.match(text, /pasted\.yaml:1: name: use lowercase letters, digits and -/);
  assert.match(text, /pasted\.yaml:5: gates\[0\]\.run: required for kind tests-pass/);
  assert.match(text, /nothing was created/);
  assert.match(text, /Bad Name/, "the pasted text is kept");
  assert.equal((await store.listLoops()).length, before);

  const refused = await post("/loops", { label: "x.yaml", folder: sandbox.root, spec: "name: x" });
  assert.equal(refused.status, 403);

  const good = await post("/loops", {
    loopwright_secret: secret,
    label: "new.yaml",
    folder: sandbox.root,
    spec: 'name: from-page\ngoal: done.txt exists\nrepo: ./repo\nmaker: { engine: scripted, turns: [{ write: { done.txt: "yes\\n" } }] }\nverifier: { engine: scripted, turns: [{ verdict: auto }] }\ngates: [{ id: done, kind: tests-pass, run: "test -s done.txt" }]\n',
  });
  assert.equal(good.status, 303, await good.clone().text());
  const created = await store.findLoop("from-page");
  assert.ok(created);
  assert.equal(good.headers.get("location"), `/loops/${created.id}`);
  // Submitted, not run here: it waits in the queue for the service, which the page says.
  const queued = (await store.readEvents(created.id)).find((event) => event.type === "loop_queued");
  assert.deepEqual(queued?.data, { by: { via: "web", name: "loopback" }, command: "run" });
  const page = await get(`/loops/${created.id}`);
  assert.match(page.text, /status-queued">queued<\/span> <span class="phase">#\d+ in the queue/);
  assert.match(page.text, /queued to run by <span class="actor">web: loopback<\/span>/);
});

test("a pasted spec with a schedule registers the schedule (no loop), listed on the loops page with its next firing", async () => {
  const before = (await store.listLoops()).length;
  const scheduled = await post("/loops", {
    loopwright_secret: secret,
    label: "nightly.yaml",
    folder: sandbox.root,
    spec: 'name: nightly-page\ngoal: done.txt exists\nrepo: ./repo\nschedule: { cron: "0 3 * * 1-5", timezone: Europe/Paris }\nmaker: { engine: scripted, turns: [{ write: { done.txt: "yes\\n" } }] }\ngates: [{ id: done, kind: tests-pass, run: "test -s done.txt" }]\n',
  });
  assert.equal(scheduled.status, 303, await scheduled.clone().text());
  assert.equal(scheduled.headers.get("location"), "/#schedules");
  assert.equal((await store.listLoops()).length, before, "a schedule queues no loop by itself");
  const loops = await get("/");
  assert.match(loops.text, /id="schedules"/);
  assert.match(loops.text, /nightly-page/);
});

test("assets are served with their types; unknown pages are 404", async () => {
  const script = await app.request("http://127.0.0.1:4477/assets/dashboard.js");
  assert.equal(script.status, 200);
  assert.match(script.headers.get("content-type") ?? "", /javascript/);
  assert.match(await script.text(), /EventSource/);
  assert.equal((await app.request("http://127.0.0.1:4477/assets/../package.json")).status, 404);
  assert.equal((await get("/loops/nope")).status, 404);
});

test("a long loop: the last 10 iterations in full, older ones one line each with their own page", async () => {
  const spec = await sandbox.spec(
    `name: long
goal: never quite
repo: ./repo
maker: { engine: scripted, turns: [{ write: { "attempt.txt": "attempt {{iteration}}\\n" } }] }
gates: [{ id: never, kind: tests-pass, run: "exit 1" }]
budget: { maxIterations: 12 }
`,
    join(sandbox.root, "long.yaml"),
  );
  const run = await sandbox.cli(["run", spec]);
  assert.equal(run.code, 3, run.stdout + run.stderr);
  const long = (await store.findLoop("long"))?.id ?? "";
  const page = await get(`/loops/${long}`);
  assert.match(page.text, /<section class="iteration compact outcome-failed" id="iteration-2"/);
  assert.doesNotMatch(page.text, /id="brief-2"/, "iteration 2 is not shown in full");
  assert.match(page.text, /id="brief-3"/, "iteration 3 (the 10th from the end) is shown in full");
  assert.match(page.text, /href="\/loops\/long-[0-9a-f]+\/iterations\/1">Iteration 1<\/a>/);
  const first = await get(`/loops/${long}/iterations/1`);
  assert.equal(first.status, 200);
  assert.match(first.text, /id="brief-1"/);
  assert.match(first.text, /href="\/loops\/long-[0-9a-f]+\/iterations\/2">iteration 2<\/a>/);
  // The live fragment answers the same parts the page holds.
  const fragment = await get(`/loops/${long}/fragments/live`);
  assert.match(fragment.text, /^<div data-live-part="head">/);
  assert.match(fragment.text, /<div data-live-part="body">/);
  assert.match(page.text, /<div data-live-part="head">/);
});

test("resume from the page queues the loop for the service, shown with its place; a refused action says why next to the buttons", async () => {
  const steerable = (await store.findLoop("steerable"))?.id ?? "";
  const resumed = await post(`/loops/${steerable}/resume`, { loopwright_secret: secret });
  assert.equal(resumed.status, 303);
  assert.match(decodeURIComponent(resumed.headers.get("location") ?? ""), /queued to resume \(position \d\)/);
  const queued = (await store.readEvents(steerable)).filter((event) => event.type === "loop_queued");
  assert.deepEqual(queued.at(-1)?.data, { by: { via: "web", name: "loopback" }, command: "resume" });
  const page = await get(`/loops/${steerable}`);
  assert.match(page.text, /status-queued">queued<\/span> <span class="phase">#\d in the queue/);
  assert.match(page.text, /queued to resume by <span class="actor">web: loopback<\/span>/);
  const list = await get("/");
  assert.match(list.text, /data-status="queued"/);
  assert.match(list.text, /#2 in the queue/);
  // Resuming again is refused with the app's message, shown next to the buttons.
  const again = await post(`/loops/${steerable}/resume`, { loopwright_secret: secret });
  assert.equal(again.status, 400);
  assert.match(await again.text(), /class="form-error" role="alert">loop steerable is already queued/);
  const paused = await post(`/loops/${loopId}/pause`, { loopwright_secret: secret });
  assert.equal(paused.status, 400, "a stopped loop cannot be paused");
  assert.match(await paused.text(), /loop pages is stopped \(verified\)/);
});

test("the change per file carries the scope screen's findings and the tamper flags, blocking apart from advisory", async () => {
  await sandbox.commit(
    { "test/answer.test.js": "test('answer', () => { expect(1).toBe(1); });\n" },
    "a test",
  );
  const spec = await sandbox.spec(
    `name: screened
goal: answer.txt says 42
repo: ./repo
maker:
  engine: scripted
  turns:
    - write: { answer.txt: "42\\n", "vendor/lib.js": "x\\n", "test/answer.test.js": "test.skip('answer', () => { expect(1).toBe(1); });\\n" }
verifier: { engine: scripted, turns: [{ verdict: auto }] }
gates: [{ id: answer, kind: tests-pass, run: "grep -qx 42 answer.txt" }]
scope: { deny: ["vendor/**"] }
budget: { maxIterations: 1 }
`,
    join(sandbox.root, "screened.yaml"),
  );
  const run = await sandbox.cli(["run", spec]);
  assert.notEqual(run.code, 0, run.stdout + run.stderr);
  const screened = (await store.findLoop("screened"))?.id ?? "";
  const diff = await get(`/loops/${screened}/iterations/1/diff`);
  assert.equal(diff.status, 200);
  assert.match(
    diff.text,
    /<code>vendor\/lib\.js<\/code><\/a> added <span class="muted">\+1 −0<\/span> <span class="badge status-fail">out of scope \(denied by vendor\/\*\*\)/,
  );
  // The advisory flag (the verifier rules on it) apart from the blocking ones (loopwright decides them).
  assert.match(
    diff.text,
    /<code>test\/answer\.test\.js<\/code><\/a> modified <span class="muted">\+1 −1<\/span> <span class="badge status-pending">T1 tamper-file<\/span> <span class="badge status-fail">T2 skip-marker-added<\/span>/,
  );
  assert.match(diff.text, /T2 skip-marker-added at line 1: new `test\.skip` marker/);
  const page = await get(`/loops/${screened}`);
  assert.match(
    page.text,
    /<code>vendor\/lib\.js<\/code> <span class="badge status-fail">out of scope<\/span>/,
  );
  assert.match(page.text, /<th scope="row">T2<\/th><td><span class="badge status-fail">blocking<\/span>/);
  assert.match(page.text, /<th scope="row">T1<\/th><td><span class="badge status-pending">advisory<\/span>/);
});

test("scheduled loops are listed with their rule and next firing", async () => {
  const spec = await sandbox.spec(
    `name: nightly
goal: the nightly check passes
repo: ./repo
maker: { engine: scripted, turns: [{}] }
gates: [{ id: t, kind: tests-pass, run: "true" }]
schedule: { cron: "0 3 * * 1-5", timezone: "Europe/Paris" }
`,
    join(sandbox.root, "nightly.yaml"),
  );
  await registerSchedule(store, await loadSpecFile(spec), "nightly.yaml");
  const page = await get("/");
  assert.match(page.text, /<h2>Scheduled<\/h2>\n<table class="schedules">/);
  assert.match(page.text, /<td>nightly<div class="muted">/);
  assert.match(page.text, /<code>cron 0 3 \* \* 1-5 \(Europe\/Paris\)<\/code>/);
  assert.match(page.text, /\d{4}-\d\d-\d\d 03:00 <span class="muted">Europe\/Paris<\/span>/);
});

test("review rounds: each round's verdict and findings linked to the reviewed commit's lines", async () => {
  const says = (answer: unknown) => `{ print: ${JSON.stringify(JSON.stringify(answer))} }`;
  const changes = says({
    verdict: "changes_requested",
    findings: [{ severity: "major", file: "notes.txt", line: 1, message: "remove the debugging note" }],
  });
  const spec = await sandbox.spec(
    `name: reviewed
goal: answer.txt says 42, and nothing else is left behind.
repo: ./repo
maker:
  engine: scripted
  turns:
    - { say: "wrote the answer", write: { answer.txt: "42\\n", notes.txt: "debug: remove me\\n" } }
    - { say: "removed the note", delete: [notes.txt] }
verifier: { engine: scripted, turns: [{ verdict: auto }] }
review:
  engine: scripted
  rounds: 3
  turns: [${changes}, ${says({ verdict: "ok", findings: [] })}]
gates: [{ id: answer, kind: tests-pass, run: "grep -qx 42 answer.txt" }]
`,
    join(sandbox.root, "reviewed.yaml"),
  );
  const run = await sandbox.cli(["run", spec]);
  assert.equal(run.code, 0, run.stdout + run.stderr);
  const reviewed = (await store.findLoop("reviewed"))?.id ?? "";
  const page = await get(`/loops/${reviewed}`);
  assert.match(page.text, /<h4>Review rounds<\/h4>/);
  assert.match(
    page.text,
    /Round 1: <code>[0-9a-f]{10}<\/code>\.\.<code>[0-9a-f]{10}<\/code>, 2 files <span class="badge status-fail">changes_requested/,
  );
  assert.match(page.text, /Round 2: [^\n]*1 file <span class="badge status-pass">ok/);
  const finding =
    /<span class="badge status-fail">major<\/span> <a href="([^"]+)"><code>notes\.txt:1<\/code><\/a> remove the debugging note/.exec(
      page.text,
    );
  assert.ok(finding, "the finding links to the file at the reviewed commit");
  const file = await get(finding[1].replaceAll("&amp;", "&").replace(/#L1$/, ""));
  assert.equal(file.status, 200);
  assert.match(file.text, /id="L1"><a class="number" href="#L1">1<\/a>debug: remove me/);
});
