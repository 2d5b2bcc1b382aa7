/**
 * A power loss while loopwright's own git writes the maker's index leaves `maker.index.lock` in the
 * loop's private git folder. `resume` clears it (loopwright owns that folder, and its sweep has just
 * killed every process of the dead run) instead of failing three commits in a row, `circuit_broken`.
 */
import assert from "node:assert/strict";
import { existsSync, readFileSync } from "node:fs";
import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import { test } from "node:test";
import type { RunContext } from "../src/loop/run-context.ts";
import { clearStaleIndexLocks } from "../src/loop/steps/clear-stale-locks.ts";
import { createSandbox } from "./support/loop-sandbox.ts";
import { survivors } from "./support/surviving-processes.ts";
import { waitFor } from "./support/wait-for.ts";

test("resume after a power loss clears the stale lock of the maker's index and goes on to verified", async () => {
  const sandbox = await createSandbox({ "README.md": "# repo\n" });
  const planted = join(sandbox.root, "lock-path");
  try {
    // First attempt only: leave the index lock as loopwright's git killed mid-write would, then hang.
    const plant = `if [ ! -e ${planted} ]; then echo "$(cd ../.. && pwd)/git/maker.index.lock" > ${planted}; touch "$(cat ${planted})"; sleep 60; fi`;
    await sandbox.spec(`name: power-loss
goal: done.txt exists
repo: ./repo
maker:
  engine: scripted
  turns:
    - write: { done.txt: "yes\\n" }
      run: ['${plant}']
gates:
  - { id: done, kind: tests-pass, run: "ls | grep -q '^done[.]txt$'" }
budget: { maxIterations: 3 }
`);
    // The maker is only this test's way to plant a power loss's leftover outside its checkout: no sandbox.
    const child = sandbox.spawnCli(["run", join(sandbox.root, "loop.yaml")], {
      env: { LOOPWRIGHT_SANDBOX: "off" },
    });
    await waitFor(
      () => existsSync(planted) && existsSync(readFileSync(planted, "utf8").trim()),
      "the planted lock",
    );
    child.kill("SIGKILL");
    await child.done;
    const lock = readFileSync(planted, "utf8").trim();
    assert.ok(existsSync(lock), "the lock outlived the controller");

    const resumed = await sandbox.cli(["resume", "power-loss"], { env: { LOOPWRIGHT_SANDBOX: "off" } });
    assert.equal(resumed.code, 0, resumed.stderr + resumed.stdout);
    assert.match(resumed.stdout, /stopped: verified/);
    assert.doesNotMatch(resumed.stdout, /infra_error/);
    assert.deepEqual(survivors(sandbox.home), []);
  } finally {
    await sandbox.cleanup();
  }
});

test("a worktree whose .git the maker redirected at the user's repository never gets the user's index.lock removed", async () => {
  const sandbox = await createSandbox({ "README.md": "# repo\n" });
  try {
    const worktree = join(sandbox.root, "maker");
    await sandbox.git("worktree", "add", "-q", "--detach", worktree);
    await writeFile(join(worktree, ".git"), `gitdir: ${join(sandbox.repo, ".git")}\n`);
    const userLock = join(sandbox.repo, ".git", "index.lock");
    await writeFile(userLock, "");
    const context = {
      loop: { id: "none" },
      layout: { loopDirectory: () => join(sandbox.root, "no-loop") },
      makerWorktree: worktree,
      gateWorktree: join(sandbox.root, "no-gates"),
    } as unknown as RunContext;
    assert.deepEqual(await clearStaleIndexLocks(context), []);
    assert.ok(existsSync(userLock), "the user's lock is untouched");
  } finally {
    await sandbox.cleanup();
  }
});
