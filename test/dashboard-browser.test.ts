/**
 * The dashboard end to end in Debian's Chromium (driven by playwright-core), against the real service
 * (`loopwright serve` as a child process: its HTTP server, its supervisor, its store), with loops of the
 * scripted engine running for real (git, gates, verifier):
 * a loop submitted from the page, its iterations appearing live without a reload, a gate log and a diff
 * opened, the budget steered from the form and quoted in the next brief, a running loop cancelled.
 * Screenshots are kept in test-artifacts/ (git-ignored). Skipped, saying so, without /usr/bin/chromium.
 */
import assert from "node:assert/strict";
import { existsSync } from "node:fs";
import { mkdir, mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, test } from "node:test";
import { type BrowserContext, chromium, type Page } from "playwright-core";
import { readServiceFile } from "../src/service/service-file.ts";
import { openStore } from "../src/store/open-store.ts";
import type { Store } from "../src/store/store.ts";
import { createSandbox, type Sandbox } from "./support/loop-sandbox.ts";
import { type ServiceProcess, startService } from "./support/service-harness.ts";

const chromiumPath = "/usr/bin/chromium";
const skip = existsSync(chromiumPath)
  ? false
  : `Debian's chromium is not installed at ${chromiumPath} (apt-get install chromium)`;
const artifacts = new URL("../test-artifacts/", import.meta.url).pathname;

let sandbox: Sandbox;
let store: Store;
let service: ServiceProcess;
let url: string;
let browser: BrowserContext;
let profile: string;

before(async () => {
  if (skip) return;
  sandbox = await createSandbox({ "README.md": "# browser\n" });
  service = await startService(sandbox);
  const info = await readServiceFile(sandbox.home);
  assert.ok(info, "the service announced itself");
  url = info.url;
  store = await openStore(sandbox.home);
  await mkdir(artifacts, { recursive: true });
  profile = await mkdtemp(join(tmpdir(), "loopwright-chromium-"));
  browser = await chromium.launchPersistentContext(profile, {
    executablePath: chromiumPath,
    headless: true,
    viewport: { width: 1280, height: 900 },
    args: [
      "--headless",
      "--no-sandbox",
      "--disable-gpu",
      "--disable-quic",
      "--no-first-run",
      "--disable-background-networking",
      "--disable-component-update",
      "--disable-sync",
    ],
  });
});

after(async () => {
  await browser?.close();
  service?.kill("SIGTERM");
  await service?.done;
  await store?.close();
  await sandbox?.cleanup();
  if (profile) await rm(profile, { recursive: true, force: true });
});

/** Submits a spec through the new-loop form and returns the loop page it lands on. */
async function submitFromPage(page: Page, spec: string): Promise<string> {
  await page.goto(`${url}/loops/new`);
  await page.fill("textarea[name=spec]", spec);
  await page.fill("input[name=label]", "browser.yaml");
  // The folder a pasted spec's relative paths (`repo: ./repo`) are read from.
  await page.fill("input[name=folder]", sandbox.root);
  await Promise.all([
    page.waitForURL(/\/loops\/[a-z0-9-]+$/),
    page.click("form#new-loop button[type=submit]"),
  ]);
  return page.url();
}

const countingSpec = `name: counted
goal: count.txt holds 3
repo: ./repo
maker:
  engine: scripted
  turns:
    - { sleep: 3s, write: { count.txt: "1\\n" }, say: "Set the count to 3; the tests pass.", costUsd: 0.42 }
    - { sleep: 1s, write: { count.txt: "2\\n" }, say: "Fixed the off-by-one: count is 3 now.", costUsd: 0.35 }
    - { sleep: 1s, write: { count.txt: "3\\n" }, say: "count.txt holds 3.", costUsd: 0.21 }
verifier: { engine: scripted, turns: [{ verdict: auto, costUsd: 0.05 }] }
gates:
  - { id: count, kind: tests-pass, run: "echo counting; grep -qx 3 count.txt || { echo 'not ok 1 - count is 3'; exit 1; }" }
budget: { maxIterations: 2 }
`;

test("submit from the page, watch iterations arrive live, open a log and a diff, steer the budget into the next brief", {
  skip,
}, async () => {
  const page = await browser.newPage();
  // A spec with a problem is refused with file:line: field: message, and nothing is created.
  await page.goto(`${url}/loops/new`);
  await page.fill("textarea[name=spec]", countingSpec.replace("kind: tests-pass", "kind: tests-passing"));
  await page.fill("input[name=label]", "browser.yaml");
  await page.fill("input[name=folder]", sandbox.root);
  await page.click("form#new-loop button[type=submit]");
  await page.waitForSelector(".problems");
  assert.match((await page.textContent(".problems")) ?? "", /browser\.yaml:12: gates\[0\]\.kind: /);
  assert.equal((await store.listLoops()).length, 0);

  const loopUrl = await submitFromPage(page, countingSpec);
  // Marks this document: a reload would lose it.
  await page.evaluate("window.loadedOnce = true");
  await page.waitForSelector("#live-state:not([hidden])");

  // Steer the budget while iteration 1 runs: applied at the boundary, quoted in brief 2.
  await page.waitForSelector("#iteration-1");
  await page.screenshot({ path: join(artifacts, "dashboard-iteration-1-running.png"), fullPage: true });
  await page.click("#steer-panel summary");
  await page.fill("input[name=budget_maxIterations]", "3");
  await Promise.all([page.waitForURL(/notice=/), page.click("form#steer button[type=submit]")]);
  assert.match((await page.textContent(".form-notice")) ?? "", /steering filed for counted/);
  await page.evaluate("window.loadedOnce = true");

  // Iterations 2 and 3 appear without a reload; the loop ends verified.
  await page.waitForSelector("#iteration-2", { timeout: 60_000 });
  await page.waitForSelector("#iteration-3", { timeout: 60_000 });
  await page.waitForSelector('.loop-header[data-status="stopped"]', { timeout: 60_000 });
  assert.equal(await page.evaluate("window.loadedOnce === true"), true, "the page was not reloaded");
  assert.ok(Number(await page.getAttribute("body", "data-refreshes")) > 0);
  assert.equal(
    await page.textContent("#live-state"),
    "● live",
    "refreshed by the event stream, not by polling",
  );
  assert.match((await page.textContent(".status-line")) ?? "", /stopped\s+verified/);
  assert.match(
    (await page.textContent(".timeline")) ?? "",
    /steering requested by web: loopback: maxIterations → 3/,
  );

  // The brief of iteration 2 quotes the change.
  await page.click("#brief-2 summary");
  assert.match((await page.textContent("#brief-2 pre")) ?? "", /budget\.maxIterations: was 2, now 3/);
  await page.screenshot({ path: join(artifacts, "dashboard-loop-verified.png"), fullPage: true });
  // The README's picture: the top of the glass box, then iteration 1's claimed-vs-verified panel.
  await page.goto(loopUrl);
  await page.evaluate("window.scrollTo(0, 0)");
  await page.screenshot({
    path: join(artifacts, "dashboard-readme.png"),
    clip: { x: 0, y: 0, width: 1280, height: 1400 },
    fullPage: true,
  });

  // A gate log with its line anchors, reached from iteration 1's gates.
  await page.click("#iteration-1 table.gates a:text('full log')");
  await page.waitForSelector("pre.log");
  assert.match((await page.textContent("#L4")) ?? "", /not ok 1 - count is 3/);
  await page.screenshot({ path: join(artifacts, "dashboard-gate-log.png"), fullPage: true });
  await page.goBack();

  // The diff of iteration 3, per file.
  await page.click("#iteration-3 a:text('change per file')");
  await page.waitForSelector(".file-diff");
  assert.match((await page.textContent(".file-diff")) ?? "", /count\.txt/);
  assert.match((await page.textContent("table.diff tr.added")) ?? "", /\+3/);
  await page.screenshot({ path: join(artifacts, "dashboard-diff.png"), fullPage: true });

  // The loops page lists it with its outcome strip.
  await page.goto(url);
  assert.match((await page.textContent(`tr[data-loop] .strip`)) ?? "", /123/);
  await page.screenshot({ path: join(artifacts, "dashboard-loops.png"), fullPage: true });
  await page.close();
});

test("cancel a running loop from its page", { skip }, async () => {
  const page = await browser.newPage();
  await submitFromPage(
    page,
    `name: endless
goal: never done
repo: ./repo
maker: { engine: scripted, turns: [{ sleep: 120s }] }
gates: [{ id: t, kind: tests-pass, run: "true" }]
`,
  );
  await page.waitForSelector("#iteration-1");
  await page.waitForFunction('document.querySelector(".status-line")?.textContent?.includes("maker")');
  // The loops page, open in another tab, follows the loop live too.
  const list = await browser.newPage();
  await list.goto(url);
  const row = 'tr[data-loop^="endless-"]';
  await list.waitForSelector(`${row}[data-status="running"]`);
  await list.evaluate("window.loadedOnce = true");
  await Promise.all([page.waitForURL(/notice=/), page.click("form[action$='/cancel'] button")]);
  await list.waitForSelector(`${row}[data-status="stopped"]`, { timeout: 30_000 });
  assert.match((await list.textContent(row)) ?? "", /user_cancelled/);
  assert.equal(await list.evaluate("window.loadedOnce === true"), true, "the loops page was not reloaded");
  await list.close();
  await page.waitForSelector('.loop-header[data-status="stopped"]', { timeout: 30_000 });
  assert.match((await page.textContent(".status-line")) ?? "", /user_cancelled/);
  assert.match((await page.textContent(".timeline")) ?? "", /cancel requested/);
  await page.screenshot({ path: join(artifacts, "dashboard-cancelled.png"), fullPage: true });
  await page.close();
});
