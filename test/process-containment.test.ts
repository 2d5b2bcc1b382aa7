/**
 * Nothing outlives the loop: a command-engine maker that ignores SIGTERM, SIGINT and SIGHUP, leaves a
 * background child, a double-forked daemon in its own session, and a daemon started with `env -i`
 * (none of loopwright's environment tags), is gone with all of them after each way a foreground run can
 * end: Ctrl-C twice in quick succession, the terminal hanging up, `cancel`, and kill -9 of the
 * controller followed by `rm`. Each test finds the processes by their own command lines.
 */
import assert from "node:assert/strict";
import { existsSync } from "node:fs";
import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import { afterEach, beforeEach, test } from "node:test";
import { sandboxAvailability } from "../src/sandbox/sandbox-availability.ts";
import { createSandbox, type Sandbox } from "./support/loop-sandbox.ts";
import { loopSummary } from "./support/loop-timeline.ts";
import { survivors } from "./support/surviving-processes.ts";
import { waitFor } from "./support/wait-for.ts";

const noSandbox = sandboxAvailability().available ? false : "no bubblewrap sandbox on this machine";
let sandbox: Sandbox;
let seconds = 4100 + (process.pid % 500) * 10;

beforeEach(async () => {
  sandbox = await createSandbox();
});
afterEach(() => sandbox.cleanup());

/** Starts a loop whose maker plants the hostile processes; resolves once all of them run. */
async function startHostileLoop(name: string, options: { withoutSandbox?: boolean } = {}) {
  seconds += 4;
  const [child, daemon, untagged, stubborn] = [0, 1, 2, 3].map((offset) => `sleep ${seconds + offset}`);
  // Without the sandbox a daemon that drops the tags cannot be found (the README says so): it keeps them.
  const untaggedStart = options.withoutSandbox
    ? `/usr/bin/setsid /bin/sh -c 'trap "" TERM INT HUP; exec ${untagged}' &`
    : `env -i /usr/bin/setsid /bin/sh -c 'trap "" TERM INT HUP; exec ${untagged}' &`;
  const ready = join(sandbox.root, `${name}-ready`);
  const maker = join(sandbox.root, `${name}-maker.sh`);
  await writeFile(
    maker,
    `#!/bin/sh
trap '' TERM INT HUP
${child} &
(setsid sh -c 'trap "" TERM INT HUP; ${daemon} & exit 0' &)
${untaggedStart}
touch ${ready}
${stubborn}
`,
    { mode: 0o755 },
  );
  const spec = await sandbox.spec(`name: ${name}
goal: never finishes
repo: ./repo
maker: { engine: command, run: ${maker} }
verifier: { engine: scripted, turns: [{ verdict: auto }] }
gates: [{ id: t, kind: tests-pass, run: "true" }]
`);
  const run = sandbox.spawnCli(["run", spec], {
    env: options.withoutSandbox ? { LOOPWRIGHT_SANDBOX: "off" } : {},
  });
  const commandLines = [child, daemon, untagged, stubborn];
  const alive = () => survivors(sandbox.home, (line) => commandLines.some((wanted) => line === wanted));
  await waitFor(() => existsSync(ready) && alive().length >= 4, "the maker and its daemons to run");
  return { run, alive };
}

/** Waits up to 5 s for `alive()` to be empty, then asserts it is. */
async function assertNoneSurvive(alive: () => string[], after: string): Promise<void> {
  const deadline = Date.now() + 5000;
  while (alive().length > 0 && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 50));
  assert.deepEqual(alive(), [], `processes left running after ${after}`);
}

test("Ctrl-C twice in quick succession: exit 130, and no process of the maker survives", {
  skip: noSandbox,
}, async () => {
  const { run, alive } = await startHostileLoop("twice");
  run.kill("SIGINT");
  run.kill("SIGINT");
  const result = await run.done;
  assert.equal(result.code, 130, result.stdout + result.stderr);
  await assertNoneSurvive(alive, "a double Ctrl-C");
});

test("the terminal hangs up (SIGHUP): exit 129, the loop stops user_cancelled, and no process of the maker survives", {
  skip: noSandbox,
}, async () => {
  const { run, alive } = await startHostileLoop("hangup");
  run.kill("SIGHUP");
  const result = await run.done;
  assert.equal(result.code, 129, result.stdout + result.stderr);
  assert.equal(
    (await loopSummary(sandbox, "hangup")).stopReason,
    "user_cancelled",
    "stopped, not left running",
  );
  await assertNoneSurvive(alive, "SIGHUP");
});

test("cancel: the run stops user_cancelled, and no process of the maker survives", {
  skip: noSandbox,
}, async () => {
  const { run, alive } = await startHostileLoop("cancelled");
  const cancel = await sandbox.cli(["cancel", "cancelled"]);
  assert.equal(cancel.code, 0, cancel.stderr);
  const result = await run.done;
  assert.equal(result.code, 130, result.stdout + result.stderr);
  await assertNoneSurvive(alive, "cancel");
});

test("kill -9 of the controller, then rm: no process of the dead run survives", {
  skip: noSandbox,
}, async () => {
  const { run, alive } = await startHostileLoop("killed");
  run.kill("SIGKILL");
  await run.done;
  const removed = await sandbox.cli(["rm", "killed"]);
  assert.equal(removed.code, 0, removed.stdout + removed.stderr);
  await assertNoneSurvive(alive, "kill -9 and rm");
});

test("without the sandbox, Ctrl-C twice still kills every tagged process of the run before leaving", async () => {
  const { run, alive } = await startHostileLoop("twice-unsandboxed", { withoutSandbox: true });
  run.kill("SIGINT");
  run.kill("SIGINT");
  const result = await run.done;
  assert.equal(result.code, 130, result.stdout + result.stderr);
  await assertNoneSurvive(alive, "a double Ctrl-C without the sandbox");
});

test("without the sandbox, rm after kill -9 of the controller kills what the dead run left", async () => {
  const { run, alive } = await startHostileLoop("killed-unsandboxed", { withoutSandbox: true });
  run.kill("SIGKILL");
  await run.done;
  assert.ok(alive().length > 0, "without the sandbox the maker outlives its controller");
  const removed = await sandbox.cli(["rm", "killed-unsandboxed"]);
  assert.equal(removed.code, 0, removed.stdout + removed.stderr);
  await assertNoneSurvive(alive, "kill -9 and rm without the sandbox");
});
