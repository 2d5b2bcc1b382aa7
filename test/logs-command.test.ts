/** `loopwright logs`: the baseline's logs (iteration 0), and an iteration that never reached its gates. */
import assert from "node:assert/strict";
import { existsSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import { createSandbox } from "./support/loop-sandbox.ts";
import { waitFor } from "./support/wait-for.ts";

test("logs --iteration 0 prints the gates' logs on the base commit; brief --iteration 0 says there is none", async () => {
  const sandbox = await createSandbox();
  try {
    const spec = await sandbox.spec(`name: based
goal: answer.txt says 42.
repo: ./repo
maker: { engine: scripted, turns: [{ write: { answer.txt: "42\\n" } }] }
gates: [{ id: done, kind: tests-pass, run: "echo looking for the answer; grep -qx 42 answer.txt" }]
`);
    assert.equal((await sandbox.cli(["run", spec])).code, 0);
    const logs = await sandbox.cli(["logs", "based", "--iteration", "0"]);
    assert.equal(logs.code, 0, logs.stderr);
    assert.match(logs.stdout, /==> iteration 0 \(the base commit\) gate done \(baseline\)/);
    assert.match(logs.stdout, /looking for the answer/);
    assert.match(logs.stdout, /# exit 2/);
    const brief = await sandbox.cli(["brief", "based", "--iteration", "0"]);
    assert.equal(brief.code, 2);
    assert.match(brief.stderr, /iteration 0 is the gates' run on the base commit: it has no brief/);
    const negative = await sandbox.cli(["logs", "based", "--iteration", "-1"]);
    assert.equal(negative.code, 2);
    assert.match(negative.stderr, /--iteration: not an iteration number: -1/);
  } finally {
    await sandbox.cleanup();
  }
});

test("logs of an iteration cancelled before its gates ran says so, and points at the base commit's logs", async () => {
  const sandbox = await createSandbox();
  try {
    const marker = join(sandbox.root, "maker-started");
    const spec = await sandbox.spec(`name: cut-short
goal: never finishes
repo: ./repo
maker: { engine: command, run: "touch ${marker}; sleep 60" }
verifier: { engine: scripted, turns: [{ verdict: auto }] }
gates: [{ id: t, kind: tests-pass, run: "true" }]
`);
    const run = sandbox.spawnCli(["run", spec]);
    await waitFor(() => existsSync(marker), "the maker to start");
    assert.equal((await sandbox.cli(["cancel", "cut-short"])).code, 0);
    assert.equal((await run.done).code, 130);
    const explicit = await sandbox.cli(["logs", "cut-short", "--iteration", "1"]);
    assert.equal(explicit.code, 2);
    assert.match(
      explicit.stderr,
      /^loopwright: iteration 1 was cancelled before its gates ran: it has no gate logs \(loopwright logs cut-short --iteration 0: the base commit's\)\n$/,
    );
    const latest = await sandbox.cli(["logs", "cut-short"]);
    assert.equal(latest.code, 2);
    assert.match(latest.stderr, /iteration 1 was cancelled before its gates ran/);
    assert.doesNotMatch(latest.stderr, /yet/);
  } finally {
    await sandbox.cleanup();
  }
});
