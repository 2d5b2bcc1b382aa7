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

test("logs redacts the secrets of its own environment from a gate log, as the service does", async () => {
  const sandbox = await createSandbox();
  try {
    // The loop's controller does not know this value as a secret, so its log keeps it as printed; the
    // CLI that prints the log later has it in a secret-named variable and must not show it.
    const secret = "planted-value-7f3a9c2e41";
    const spec = await sandbox.spec(`name: leaky
goal: answer.txt says 42.
repo: ./repo
maker: { engine: scripted, turns: [{ write: { answer.txt: "42\\n" } }] }
gates: [{ id: done, kind: tests-pass, run: "echo the key is ${secret}, twice: ${secret}; grep -qx 42 answer.txt" }]
`);
    assert.equal((await sandbox.cli(["run", spec])).code, 0);
    const unredacted = await sandbox.cli(["logs", "leaky", "--iteration", "0"]);
    assert.match(unredacted.stdout, new RegExp(`the key is ${secret}`), "the log holds the value as written");
    const logs = await sandbox.cli(["logs", "leaky", "--iteration", "0"], {
      env: { PLANTED_API_KEY: secret },
    });
    assert.equal(logs.code, 0, logs.stderr);
    assert.doesNotMatch(logs.stdout, /planted-value/);
    assert.match(logs.stdout, /the key is \[redacted:PLANTED_API_KEY\], twice: \[redacted:PLANTED_API_KEY\]/);
    assert.match(logs.stdout, /==> iteration 0 \(the base commit\) gate done \(baseline\)/);
    const latest = await sandbox.cli(["logs", "leaky"], { env: { PLANTED_API_KEY: secret } });
    assert.equal(latest.code, 0, latest.stderr);
    assert.match(latest.stdout, /\[redacted:PLANTED_API_KEY\]/);
    assert.doesNotMatch(latest.stdout, /planted-value/);
    // The report quotes the gates' output tails: redacted the same way, in Markdown and in JSON.
    assert.match((await sandbox.cli(["report", "leaky"])).stdout, /planted-value/);
    for (const args of [
      ["report", "leaky"],
      ["report", "leaky", "--json"],
      ["show", "leaky", "--json"],
    ]) {
      const printed = await sandbox.cli(args, { env: { PLANTED_API_KEY: secret } });
      assert.equal(printed.code, 0, printed.stderr);
      assert.doesNotMatch(printed.stdout, /planted-value/, args.join(" "));
    }
  } finally {
    await sandbox.cleanup();
  }
});
