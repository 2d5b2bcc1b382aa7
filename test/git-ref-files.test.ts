/**
 * A branch's tip read from its ref files is git's answer, or no answer: a loose ref that is a symbolic
 * link (`core.preferSymlinkRefs`), dangling from the file's point of view and shadowing a stale
 * packed-refs line, is left to git.
 */
import assert from "node:assert/strict";
import { test } from "node:test";
import { git } from "../src/git/git.ts";
import { branchTip } from "../src/git/loop-branch.ts";
import { readBranchFile } from "../src/git/ref-files.ts";

const { commitEverything, newRepository, writeFiles } = await import("./git-fixtures.ts");

test("a symbolic-link loose ref is left to git, whose answer branchTip gives", async () => {
  const root = await newRepository({ "a.txt": "a\n" });
  await git(["branch", "loop/x"], root);
  await git(["pack-refs", "--all"], root);
  const stale = await git(["rev-parse", "refs/heads/loop/x"], root, { trim: true });
  await writeFiles(root, { "a.txt": "b\n" });
  const moved = await commitEverything(root, "second");
  await git(["branch", "other"], root);
  await git(
    ["-c", "core.preferSymlinkRefs=true", "symbolic-ref", "refs/heads/loop/x", "refs/heads/other"],
    root,
  );
  assert.equal(await git(["rev-parse", "refs/heads/loop/x"], root, { trim: true }), moved);
  assert.notEqual(stale, moved);
  assert.equal(await readBranchFile(root, "loop/x"), undefined);
  assert.equal(await branchTip(root, "loop/x"), moved);
});

test("a plain loose ref and a packed one are read from the files", async () => {
  const root = await newRepository({ "a.txt": "a\n" });
  const head = await git(["rev-parse", "HEAD"], root, { trim: true });
  await git(["branch", "loose"], root);
  assert.equal(await readBranchFile(root, "loose"), head);
  await git(["branch", "packed"], root);
  await git(["pack-refs", "--all"], root);
  assert.equal(await readBranchFile(root, "packed"), head);
});
