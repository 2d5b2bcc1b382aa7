/**
 * `serve` is also the HTTP face: service.json names the bound URL, the API answers there, and a loop
 * submitted with `POST /api/loops` is queued by the web actor and run by the same process.
 */
import assert from "node:assert/strict";
import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { test } from "node:test";
import { createSandbox } from "./support/loop-sandbox.ts";
import { startService, stopService, timelines, waitForStopped } from "./support/service-harness.ts";

test("serve answers the API at the URL in service.json; a loop posted there runs in the service", {
  timeout: 120_000,
}, async () => {
  const sandbox = await createSandbox();
  try {
    const service = await startService(sandbox);
    try {
      const info = JSON.parse(await readFile(join(sandbox.home, "service.json"), "utf8"));
      assert.match(info.url, /^http:\/\/127\.0\.0\.1:\d+$/);
      assert.notEqual(info.port, 0, "the bound port, not the one asked for");
      assert.match(service.output(), new RegExp(`loopwright serve: ${info.url}, pid ${service.pid}`));
      const session = (await (await fetch(`${info.url}/api/session`)).json()) as { secret: string };
      const posted = await fetch(`${info.url}/api/loops`, {
        method: "POST",
        headers: {
          "content-type": "application/json",
          origin: info.url,
          "x-loopwright-secret": session.secret,
        },
        body: JSON.stringify({
          label: "posted.yaml",
          directory: sandbox.root,
          spec: `name: posted
goal: posted.txt says done.
repo: ./repo
maker: { engine: scripted, turns: [{ write: { posted.txt: "done\\n" } }] }
verifier: { engine: scripted, turns: [{ verdict: auto }] }
gates:
  - { id: done, kind: tests-pass, run: "grep -qx done posted.txt" }
`,
        }),
      });
      assert.ok(posted.status < 300, `${posted.status} ${await posted.clone().text()}`);
      await waitForStopped(sandbox, ["posted"], "the posted loop to finish");
      const listed = (await (await fetch(`${info.url}/api/loops`)).json()) as {
        loops: { name: string; status: string }[];
      };
      assert.deepEqual(
        listed.loops.map((loop) => [loop.name, loop.status]),
        [["posted", "stopped"]],
      );
      const page = await fetch(`${info.url}/`);
      assert.equal(page.status, 200);
      assert.match(await page.text(), /posted/, "the dashboard is served by the same process");
    } finally {
      await stopService(service);
    }
    const events = timelines(sandbox).get("posted") ?? [];
    assert.deepEqual(events.find((event) => event.type === "loop_queued")?.data, {
      by: { via: "web", name: "loopback" },
      command: "run",
    });
    assert.equal(events.findLast((event) => event.type === "loop_stopped")?.data.reason, "verified");
  } finally {
    await sandbox.cleanup();
  }
});
