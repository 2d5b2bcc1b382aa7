/**
 * Branch questions answered from git's files (create-loop, prepare) must agree with git, or leave the
 * question to git (create-loop.test.ts holds the loops made on such names), where a file read could be wrong: names beyond ASCII (the files are read as bytes), a
 * `.git` folder whose refs live in the common folder its `commondir` names.
 */
import assert from "node:assert/strict";
import { cp, rm, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { test } from "node:test";
import { git } from "../src/git/git.ts";
import { localBranchesFromFiles } from "../src/git/local-branch-files.ts";
import { checkedOutAt } from "../src/git/loop-branch.ts";
import { readBranchFile } from "../src/git/ref-files.ts";
import { branchHolderFromFiles } from "../src/git/worktree-heads.ts";
import { createSandbox, type Sandbox } from "./support/loop-sandbox.ts";

async function withSandbox(body: (sandbox: Sandbox) => Promise<void>): Promise<void> {
  const sandbox = await createSandbox();
  try {
    await body(sandbox);
  } finally {
    await sandbox.cleanup?.();
  }
}

test("the checkout holding an unborn branch named beyond ASCII: the files defer to git, which finds it", () =>
  withSandbox(async (sandbox) => {
    await sandbox.git("checkout", "-q", "--orphan", "fé");
    assert.equal(branchHolderFromFiles(sandbox.repo, "fé"), undefined);
    assert.equal(await checkedOutAt(sandbox.repo, "fé"), sandbox.repo);
  }));

test("a .git folder with a commondir (refs kept elsewhere): every file reader defers to git", () =>
  withSandbox(async (sandbox) => {
    await sandbox.git("branch", "taken");
    const linked = join(sandbox.root, "linked");
    await sandbox.git("worktree", "add", "-q", "-b", "side", linked);
    // The linked checkout's `.git` file replaced by a copy of its administrative folder (it names the
    // common folder in `commondir`): git reads refs, packed-refs and worktrees from the common folder.
    const admin = (await git(["rev-parse", "--absolute-git-dir"], linked, { trim: true })).trim();
    await rm(join(linked, ".git"));
    await cp(admin, join(linked, ".git"), { recursive: true });
    await writeFile(join(linked, ".git", "commondir"), `${join(sandbox.repo, ".git")}\n`);
    assert.match(await git(["branch", "--list", "taken"], linked), /taken/);
    assert.equal(localBranchesFromFiles(linked, ["taken", "main"]), undefined);
    assert.equal(branchHolderFromFiles(linked, "main"), undefined);
    assert.equal(await readBranchFile(linked, "taken"), undefined);
  }));
