import assert from "node:assert/strict";
import { chmod } from "node:fs/promises";
import { join } from "node:path";
import { describe, it } from "node:test";
import { git } from "../src/git/git.ts";
import { pushBranch } from "../src/git/push.ts";
import { addWorktree } from "../src/git/worktrees.ts";
import { commitEverything, newFolder, newRepository, setupIdentity, writeFiles } from "./git-fixtures.ts";

/** A repository with a local bare remote `origin` and a loop branch `loop` one commit ahead of main. */
async function setUp() {
  const root = await newRepository();
  const remote = join(await newFolder("remote"), "origin.git");
  await git(["init", "--quiet", "--bare", remote], root);
  await git(["remote", "add", "origin", remote], root);
  const maker = join(await newFolder("state"), "maker");
  await addWorktree(root, maker, { newBranch: "loop", from: "HEAD" });
  await writeFiles(maker, { "feature.txt": "done\n" });
  const sha = await commitEverything(maker, "feature");
  return { root, remote, maker, sha };
}

describe("pushBranch", () => {
  it("pushes the loop branch to a local bare remote", async () => {
    const { root, remote, sha } = await setUp();
    assert.deepEqual(await pushBranch(root, "origin", "loop"), { pushed: true });
    assert.equal(await git(["rev-parse", "refs/heads/loop"], remote, { trim: true }), sha);
    assert.equal((await git(["config", "--get-regexp", "^branch\\."], root).catch(() => "")).trim(), "");
  });

  it("reports a missing remote instead of throwing", async () => {
    const { root } = await setUp();
    const outcome = await pushBranch(root, "nowhere", "loop");
    assert.equal(outcome.pushed, false);
    assert.match(outcome.error ?? "", /'nowhere' does not appear to be a git repository/);
  });

  it("reports a rejected push without forcing it", async () => {
    const { root, remote, maker } = await setUp();
    assert.equal((await pushBranch(root, "origin", "loop")).pushed, true);
    const remoteTip = await git(["rev-parse", "refs/heads/loop"], remote, { trim: true });
    await git([...setupIdentity, "commit", "--quiet", "--amend", "-m", "rewritten"], maker);

    const outcome = await pushBranch(root, "origin", "loop");

    assert.equal(outcome.pushed, false);
    assert.match(outcome.error ?? "", /rejected|non-fast-forward/);
    assert.equal(await git(["rev-parse", "refs/heads/loop"], remote, { trim: true }), remoteTip);
  });
});

describe("pushBranch limits", () => {
  it("gives up after its time limit when the remote never answers", async () => {
    const { root } = await setUp();
    const silentSsh = join(await newFolder("ssh"), "silent-ssh");
    await writeFiles(join(silentSsh, ".."), { "silent-ssh": "#!/bin/sh\nexec sleep 5\n" });
    await chmod(silentSsh, 0o755);
    process.env.GIT_SSH_COMMAND = silentSsh;
    try {
      const outcome = await pushBranch(root, "ssh://git@example.invalid/repo.git", "loop", {
        timeoutMs: 300,
      });
      assert.deepEqual(outcome, {
        pushed: false,
        error: "push to ssh://git@example.invalid/repo.git timed out after 0.3s",
      });
    } finally {
      delete process.env.GIT_SSH_COMMAND;
    }
  });
});
