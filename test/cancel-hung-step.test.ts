/**
 * `cancel` works whatever a step does: a step that never finishes (here made to hang with the
 * `LOOPWRIGHT_TEST_HANG_STEP` fault hook, as a read of a FIFO did before reads were made safe) is
 * abandoned a few seconds after the cancel, and the loop stops `user_cancelled` with exit 130.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { test } from "node:test";
import { createSandbox } from "./support/loop-sandbox.ts";
import { survivors } from "./support/surviving-processes.ts";
import { waitFor } from "./support/wait-for.ts";

test("cancel stops a loop whose step hangs: abandoned after the grace, stopped user_cancelled, exit 130", async () => {
  const sandbox = await createSandbox({ "README.md": "# repo\n" });
  try {
    await sandbox.spec(`name: hung
goal: done.txt exists
repo: ./repo
maker: { engine: scripted, turns: [{ write: { done.txt: "yes\\n" } }] }
gates:
  - { id: done, kind: tests-pass, run: "ls | grep -q '^done[.]txt$'" }
budget: { maxIterations: 2 }
`);
    const child = sandbox.spawnCli(["run", join(sandbox.root, "loop.yaml")], {
      env: { LOOPWRIGHT_TEST_HANG_STEP: "commit" },
    });
    await waitFor(() => /maker completed/.test(child.output().stdout), "the maker's turn", 60_000);
    const cancelled = performance.now();
    const cancel = await sandbox.cli(["cancel", "hung"]);
    assert.equal(cancel.code, 0, cancel.stderr);
    const timer = setTimeout(() => child.kill("SIGKILL"), 30_000);
    const result = await child.done;
    clearTimeout(timer);
    assert.equal(result.code, 130, result.stdout + result.stderr);
    assert.ok(performance.now() - cancelled < 20_000, "stopped within the grace");
    assert.match(
      result.stdout,
      /stopped: user_cancelled: .*commit did not stop within \d+ s and was abandoned/,
    );
    const list = await sandbox.cli(["ls", "--all", "--json"]);
    assert.equal(JSON.parse(list.stdout)[0].stopReason, "user_cancelled");
    assert.deepEqual(survivors(sandbox.home), []);
  } finally {
    await sandbox.cleanup();
  }
});
