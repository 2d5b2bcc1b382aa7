/**
 * The strategy section of one loop's page, over loops the real CLI ran (scripted engines, real git, real
 * gates and metric commands): a streak's runs, clean streak, per-test failure rates and its 95% bound; a
 * task list with a done, a blocked and the current open task with its criteria; a metric's results
 * table and chart of medians. Each page shows what `report --json` says, not a number of its own.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { after, before, test } from "node:test";
import type { Hono } from "hono";
import { createServer, type LoopwrightServer } from "../src/server/create-server.ts";
import { mountDashboard } from "../src/server/dashboard/mount-dashboard.ts";
import { openStore } from "../src/store/open-store.ts";
import type { Store } from "../src/store/store.ts";
import { createSandbox, type Sandbox } from "./support/loop-sandbox.ts";
import { metricSpec, strategyEnv, strategyFiles, streakSpec, tasksSpec } from "./support/strategy-loops.ts";

let sandbox: Sandbox;
let store: Store;
let app: Hono;
let server: LoopwrightServer;

before(async () => {
  sandbox = await createSandbox(strategyFiles);
  const env = strategyEnv(sandbox);
  const streak = await sandbox.cli(["run", await sandbox.spec(streakSpec, join(sandbox.root, "racy.yaml"))], {
    env,
  });
  assert.equal(streak.code, 0, streak.stdout + streak.stderr);
  const tasks = await sandbox.cli(
    ["run", await sandbox.spec(tasksSpec(), join(sandbox.root, "numbers.yaml"))],
    { env },
  );
  assert.notEqual(tasks.code, 0, "the task list is not finished within three iterations");
  const metric = await sandbox.cli(
    ["run", await sandbox.spec(metricSpec(), join(sandbox.root, "tune.yaml"))],
    {
      env,
    },
  );
  assert.equal(metric.code, 3, metric.stdout + metric.stderr);
  store = await openStore(sandbox.home);
  server = createServer({ store, home: sandbox.home, secret: "strategy-page-secret", mount: mountDashboard });
  app = server.app;
});

after(async () => {
  server?.close();
  await store?.close();
  await sandbox?.cleanup();
});

async function pageOf(name: string): Promise<string> {
  const id = (await store.findLoop(name))?.id ?? "";
  const response = await app.request(`http://127.0.0.1:4477/loops/${id}`);
  assert.equal(response.status, 200);
  return response.text();
}

async function reportOf(name: string) {
  const report = await sandbox.cli(["report", name, "--json"]);
  assert.equal(report.code, 0, report.stderr);
  return JSON.parse(report.stdout).strategy;
}

/** The strategy section alone, with the HTML entities people never see turned back. */
function section(page: string): string {
  const match = page.match(/<section class="strategy [^"]*" id="strategy">[\s\S]*?<\/section>/);
  assert.ok(match, "the page has a strategy section");
  return match[0].replaceAll("&#39;", "'").replaceAll("&quot;", '"').replaceAll("&amp;", "&");
}

test("a streak loop's page: green and red runs, the clean streak against passes, failure rates, the 95% bound", {
  timeout: 60_000,
}, async () => {
  const data = await reportOf("racy");
  const html = section(await pageOf("racy"));
  assert.match(html, /<h2>Streak<\/h2>/);
  // Base: baseline green, confirm red (the race), recheck is not a full run; iteration 1: three greens.
  const runs = [...html.matchAll(/<li data-passed="(yes|no)">/g)].map((match) => match[1]);
  assert.deepEqual(
    runs,
    data.streak.runs.map((run: { passed: boolean }) => (run.passed ? "yes" : "no")),
  );
  assert.deepEqual(runs, ["yes", "no", "yes", "yes", "yes"]);
  assert.match(html, /Clean streak <strong>3 of 3<\/strong>/);
  assert.match(html, /5 of at most 12 full runs, 1 red/);
  assert.match(
    html,
    /<code>suite › racy total<\/code><\/td><td class="number">1<\/td><td class="number">5<\/td><td class="number">20%<\/td><td>base<\/td><td>iteration 1<\/td>/,
  );
  assert.ok(data.streak.proves, "the report states what the streak proves");
  assert.ok(html.includes(data.streak.proves), "the page states it in the report's words");
  assert.match(html, /below 63\.2% at 95% confidence/);
});

test("a tasks loop's page: done by iteration and commit, blocked, open, the current task and its criteria", {
  timeout: 60_000,
}, async () => {
  const data = await reportOf("numbers");
  const html = section(await pageOf("numbers"));
  assert.match(html, /2 of 4 tasks done in <code>tasks.md<\/code>/);
  const one = data.tasks.find((task: { id: string }) => task.id === "1");
  assert.equal(one.status, "done");
  assert.match(
    html,
    new RegExp(
      `data-task="1" data-status="done">.*by iteration <a href="[^"]+">1</a>, ticked in <code>${one.completed.sha.slice(0, 10)}</code>`,
    ),
  );
  assert.equal(
    await sandbox.git("log", "-1", "--format=%s", one.completed.sha),
    "loopwright: numbers task 1 done: Write one.txt",
  );
  assert.match(html, /data-task="2" data-status="blocked">.*blocked<\/span> at iteration 2 after 1 attempts/);
  assert.match(html, /data-task="3" data-status="done">.*by iteration <a href="[^"]+">3<\/a>/);
  assert.match(html, /data-task="4" data-status="open">.*open, current/);
  assert.equal(data.currentTaskId, "4");
  assert.match(
    html,
    /<h3>Current task: 4 Write four.txt<\/h3>\s*<p>Acceptance criteria:<\/p><ul class="criteria"><li>four.txt says four<\/li><li>nothing else changes<\/li><\/ul>/,
  );
});

test("a metric loop's page: the results table, the noise floor, best so far, and the chart of medians", {
  timeout: 60_000,
}, async () => {
  const data = await reportOf("tune");
  const html = section(await pageOf("tune"));
  assert.match(html, /noise floor <strong>0\.01<\/strong>; best kept <strong>0\.8<\/strong>/);
  assert.match(html, /2 of 4 attempts kept/);
  const rows = [...html.matchAll(/<tr data-attempt="(\d+)" data-kept="(yes|no)">(.*?)<\/tr>/g)];
  assert.deepEqual(
    rows.map((row) => `${row[1]}:${row[2]}`),
    ["1:yes", "2:no", "3:yes", "4:no"],
  );
  for (const [index, row] of rows.entries()) {
    const attempt = data.metric.attempts[index];
    assert.ok(row[3].includes(`<code>${attempt.sha.slice(0, 10)}</code>`), "each row names its commit");
    assert.ok(row[3].includes(attempt.reason), "and why it was kept or reset");
    assert.ok(row[3].includes(attempt.samples.map(String).join(", ")), "and its samples");
  }
  assert.match(
    rows[0][3],
    /<td class="number">0\.9<\/td><td class="number">0\.9<\/td><td><span class="badge status-pass">kept/,
  );
  assert.match(rows[1][3], /reset<\/span> <code>refs\/loopwright\//);
  assert.deepEqual(
    rows.map((row) => row[3].match(/<td class="number">([0-9.]+)<\/td>$/)?.[1]),
    ["0.9", "0.9", "0.8", "0.8"],
    "best so far after each attempt",
  );
  // The chart: the base and one dot per attempt, kept or reset, and the best-kept step line.
  assert.match(html, /<svg viewBox="[^"]+" role="img" aria-label="Median per attempt">/);
  assert.deepEqual(
    [...html.matchAll(/<circle class="point (base|kept|reset)"/g)].map((match) => match[1]),
    ["base", "kept", "reset", "kept", "reset"],
  );
  assert.match(html, /<polyline class="best-line" fill="none" points="[0-9., ]+">/);
});

test("review rounds on a tasks loop: the page shows the rounds, their findings and the set-aside ones, beside the task list", {
  timeout: 120_000,
}, async () => {
  await sandbox.commit({ "review-tasks.md": "- [ ] Write a.txt\n  - a.txt says a\n" }, "a one-task list");
  const says = (answer: unknown) => `{ print: ${JSON.stringify(JSON.stringify(answer))} }`;
  const changes = says({
    verdict: "changes_requested",
    findings: [
      { severity: "major", file: "notes.txt", line: 1, message: "remove the debugging note" },
      { severity: "minor", file: "ghost.txt", line: 3, message: "a file the patch never touched" },
    ],
  });
  const spec = await sandbox.spec(
    `name: reviewed-tasks
goal: Do the task list, leaving nothing behind.
repo: ./repo
strategy: { kind: tasks, file: review-tasks.md }
maker:
  engine: scripted
  turns:
    - { say: "wrote a", write: { a.txt: "a\\n", notes.txt: "debug: remove me\\n" } }
    - { say: "removed the note", delete: [notes.txt] }
verifier: { engine: scripted, turns: [{ verdict: auto }] }
review:
  engine: scripted
  rounds: 3
  turns: [${changes}, ${says({ verdict: "ok", findings: [] })}]
gates: [{ id: intact, kind: build-succeeds, run: "test ! -e broken.txt" }]
budget: { maxIterations: 2 }
`,
    join(sandbox.root, "reviewed-tasks.yaml"),
  );
  const run = await sandbox.cli(["run", spec]);
  assert.equal(run.code, 0, run.stdout + run.stderr);
  const page = await pageOf("reviewed-tasks");
  assert.match(page, /<h4>Review rounds<\/h4>/);
  assert.match(
    page,
    /Round 1: <code>[0-9a-f]{10}<\/code>\.\.<code>[0-9a-f]{10}<\/code>, 2 files <span class="badge status-fail">changes_requested/,
  );
  assert.match(page, /Round 2: [^\n]*1 file <span class="badge status-pass">ok/);
  assert.match(page, /<code>notes\.txt:1<\/code><\/a> remove the debugging note/);
  assert.match(
    page,
    /<summary>1 finding set aside<\/summary><ul><li><code>ghost\.txt:3<\/code> a file the patch never touched/,
  );
  const html = section(page);
  assert.match(html, /1 of 1 tasks done in <code>review-tasks.md<\/code>/);
  assert.match(html, /data-task="1" data-status="done">.*by iteration <a href="[^"]+">1<\/a>/);
});
