import assert from "node:assert/strict";
import { access, readFile, rm } from "node:fs/promises";
import { join } from "node:path";
import { describe, it } from "node:test";
import { UsageError } from "../src/errors.ts";
import { git } from "../src/git/git.ts";
import { branchExists } from "../src/git/repository.ts";
import {
  addWorktree,
  checkoutDetached,
  ensureWorktree,
  removeWorktree,
  resetWorktree,
} from "../src/git/worktrees.ts";
import { checkoutState, commitEverything, newFolder, newRepository, writeFiles } from "./git-fixtures.ts";

const exists = (path: string) =>
  access(path).then(
    () => true,
    () => false,
  );

async function branchOf(path: string): Promise<string> {
  return git(["symbolic-ref", "--short", "HEAD"], path, { trim: true });
}

describe("addWorktree", () => {
  it("creates a worktree on a new branch and leaves the user's checkout alone", async () => {
    const root = await newRepository();
    await writeFiles(root, { "README.md": "# user's unsaved edit\n", "notes.txt": "untracked\n" });
    const before = await checkoutState(root);
    const path = join(await newFolder("state"), "loops", "one", "maker");

    await addWorktree(root, path, { newBranch: "loopwright/one", from: before.head });

    assert.equal(await branchOf(path), "loopwright/one");
    assert.equal(await readFile(join(path, "README.md"), "utf8"), "# demo\n");
    assert.deepEqual(await checkoutState(root), before);
  });

  it("refuses a branch the user has checked out", async () => {
    const root = await newRepository();
    const path = join(await newFolder("state"), "maker");
    await assert.rejects(addWorktree(root, path, { existingBranch: "main" }), (error: Error) => {
      assert.ok(error instanceof UsageError);
      assert.match(error.message, /'main' is already (checked out|used by worktree) at/);
      return true;
    });
    await assert.rejects(addWorktree(root, path, { existingBranch: "missing" }), UsageError);
  });

  it("refuses a folder inside the checkout", async () => {
    const root = await newRepository();
    await assert.rejects(
      addWorktree(root, join(root, ".loopwright", "maker"), { detached: "HEAD" }),
      /overlaps the checkout/,
    );
    assert.equal(await exists(join(root, ".loopwright")), false);
  });
});

describe("ensureWorktree", () => {
  it("reuses a valid worktree as it is, uncommitted files included", async () => {
    const root = await newRepository();
    const path = join(await newFolder("state"), "maker");
    const head = (await checkoutState(root)).head;
    await ensureWorktree(root, path, { newBranch: "loop", from: head });
    await writeFiles(path, { "work.txt": "in progress\n" });
    await ensureWorktree(root, path, { newBranch: "loop", from: head });
    assert.equal(await readFile(join(path, "work.txt"), "utf8"), "in progress\n");
    assert.equal(await branchOf(path), "loop");
  });

  it("recreates a worktree whose folder was deleted, on the branch as it was", async () => {
    const root = await newRepository();
    const path = join(await newFolder("state"), "maker");
    const base = (await checkoutState(root)).head;
    await ensureWorktree(root, path, { newBranch: "loop", from: base });
    await writeFiles(path, { "feature.txt": "done\n" });
    const tip = await commitEverything(path, "iteration 1");
    await rm(path, { recursive: true, force: true });

    await ensureWorktree(root, path, { newBranch: "loop", from: base });

    assert.equal(await branchOf(path), "loop");
    assert.equal(await git(["rev-parse", "HEAD"], path, { trim: true }), tip);
    assert.equal(await readFile(join(path, "feature.txt"), "utf8"), "done\n");
  });

  it("recreates a worktree whose registration was pruned", async () => {
    const root = await newRepository();
    const path = join(await newFolder("state"), "gates");
    const head = (await checkoutState(root)).head;
    await ensureWorktree(root, path, { detached: head });
    await rm(join(root, ".git", "worktrees"), { recursive: true, force: true });
    await ensureWorktree(root, path, { detached: head });
    assert.equal(await git(["rev-parse", "HEAD"], path, { trim: true }), head);
    assert.match(await git(["worktree", "list"], root), /gates/);
  });

  it("never deletes a folder that is not a worktree", async () => {
    const root = await newRepository();
    const path = join(await newFolder("state"), "maker");
    await writeFiles(path, { "precious.txt": "keep me\n" });
    await assert.rejects(ensureWorktree(root, path, { detached: "HEAD" }), UsageError);
    assert.equal(await readFile(join(path, "precious.txt"), "utf8"), "keep me\n");
  });
});

describe("removeWorktree", () => {
  it("removes a dirty worktree but keeps its branch", async () => {
    const root = await newRepository();
    const path = join(await newFolder("state"), "maker");
    await addWorktree(root, path, { newBranch: "loop", from: "HEAD" });
    await writeFiles(path, { "README.md": "changed\n", "new.txt": "new\n" });
    await removeWorktree(root, path);
    assert.equal(await exists(path), false);
    assert.equal(await branchExists(root, "loop"), true);
    assert.doesNotMatch(await git(["worktree", "list"], root), /maker/);
    await removeWorktree(root, path);
  });
});

describe("resetWorktree and checkoutDetached", () => {
  it("resetWorktree drops tracked changes and untracked files but keeps ignored ones", async () => {
    const root = await newRepository();
    const path = join(await newFolder("state"), "maker");
    await addWorktree(root, path, { newBranch: "loop", from: "HEAD" });
    const base = await git(["rev-parse", "HEAD"], path, { trim: true });
    await writeFiles(path, { "second.txt": "2\n" });
    await commitEverything(path, "second");
    await writeFiles(path, {
      "README.md": "edited\n",
      "scratch/untracked.txt": "x\n",
      "node_modules/lib/index.js": "kept\n",
      ".env": "TOKEN=1\n",
    });

    await resetWorktree(path, base);

    assert.equal(await git(["rev-parse", "loop"], root, { trim: true }), base);
    assert.equal(await readFile(join(path, "README.md"), "utf8"), "# demo\n");
    assert.equal(await exists(join(path, "second.txt")), false);
    assert.equal(await exists(join(path, "scratch")), false);
    assert.equal(await readFile(join(path, "node_modules/lib/index.js"), "utf8"), "kept\n");
    assert.equal(await readFile(join(path, ".env"), "utf8"), "TOKEN=1\n");
  });

  it("checkoutDetached moves the gate worktree to a SHA, cleaned, ignored files kept", async () => {
    const root = await newRepository();
    const maker = join(await newFolder("state"), "maker");
    const gates = join(await newFolder("state"), "gates");
    await addWorktree(root, maker, { newBranch: "loop", from: "HEAD" });
    await writeFiles(maker, { "feature.txt": "1\n" });
    const sha = await commitEverything(maker, "feature");
    await addWorktree(root, gates, { detached: "main" });
    await writeFiles(gates, { "README.md": "stale\n", "leftover.txt": "x\n", "node_modules/a.js": "1\n" });

    await checkoutDetached(gates, sha);

    assert.equal(await git(["rev-parse", "HEAD"], gates, { trim: true }), sha);
    assert.equal(await git(["status", "--porcelain"], gates), "");
    assert.equal(await readFile(join(gates, "feature.txt"), "utf8"), "1\n");
    assert.equal(await readFile(join(gates, "node_modules/a.js"), "utf8"), "1\n");
    assert.equal(await git(["rev-parse", "loop"], root, { trim: true }), sha);
  });
});
