import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { rm, symlink, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { test } from "node:test";
import { checkedOutAt } from "../src/git/loop-branch.ts";
import { branchHolderFromFiles } from "../src/git/worktree-heads.ts";
import { createSandbox } from "./support/loop-sandbox.ts";

test("the branch's holder read from git's files is git's own answer: main checkout, linked, unborn, none", async () => {
  const sandbox = await createSandbox();
  try {
    const agree = async (branch: string, expected: string | undefined) => {
      assert.deepEqual(branchHolderFromFiles(sandbox.repo, branch), { holder: expected }, branch);
      assert.equal(await checkedOutAt(sandbox.repo, branch), expected, branch);
    };
    await agree("main", sandbox.repo);
    await agree("loop/free", undefined);
    await sandbox.git("branch", "loop/linked");
    const linked = join(sandbox.root, "linked worktree");
    await sandbox.git("worktree", "add", "-q", linked, "loop/linked");
    await agree("loop/linked", linked);
    const orphan = join(sandbox.root, "orphan");
    await sandbox.git("worktree", "add", "-q", "--detach", orphan);
    await agree("loop/unborn", undefined);
    await sandbox.git("-C", orphan, "checkout", "-q", "--orphan", "loop/unborn");
    await agree("loop/unborn", orphan);
    // A linked worktree whose folder is gone is still listed by git until pruned.
    await rm(linked, { recursive: true, force: true });
    await agree("loop/linked", linked);
    await sandbox.git("checkout", "-q", "--detach");
    await agree("main", undefined);
  } finally {
    await sandbox.cleanup();
  }
});

test("what the files cannot tell for sure is left to git", async () => {
  const sandbox = await createSandbox();
  try {
    const dotGit = join(sandbox.repo, ".git");
    assert.equal(branchHolderFromFiles(sandbox.repo, "bad..name"), undefined);
    assert.equal(branchHolderFromFiles(join(sandbox.root, "nowhere"), "main"), undefined);
    await sandbox.git("branch", "loop/linked");
    const linked = join(sandbox.root, "linked");
    await sandbox.git("worktree", "add", "-q", linked, "loop/linked");
    const id = "linked"; // git names a linked worktree's folder in .git/worktrees after its own
    await writeFile(join(dotGit, "worktrees", id, "gitdir"), "relative/.git\n");
    assert.equal(branchHolderFromFiles(sandbox.repo, "loop/linked"), undefined);
    await writeFile(join(dotGit, "worktrees", id, "HEAD"), "something else\n");
    assert.equal(branchHolderFromFiles(sandbox.repo, "loop/other"), undefined);
    await rm(join(dotGit, "HEAD"));
    await symlink("refs/heads/main", join(dotGit, "HEAD"));
    assert.equal(branchHolderFromFiles(sandbox.repo, "main"), undefined);
    // A FIFO is never read (the read would hang).
    await rm(join(dotGit, "HEAD"));
    execFileSync("mkfifo", [join(dotGit, "HEAD")]);
    assert.equal(branchHolderFromFiles(sandbox.repo, "main"), undefined);
  } finally {
    await sandbox.cleanup();
  }
});
