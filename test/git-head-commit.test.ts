/**
 * `validate`'s base commit read from a plain repository's files (`plainHeadCommitAt`): where it answers,
 * its answer is `repositoryCommitAt`'s (git's `rev-parse --verify HEAD^{commit}`), and wherever git
 * could answer otherwise (a packed object, a ref to something that is not a commit, an unborn branch,
 * replace refs, another commit-ish) it steps aside.
 */
import assert from "node:assert/strict";
import { chmodSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, it } from "node:test";
import { git } from "../src/git/git.ts";
import { plainHeadCommitAt } from "../src/git/head-commit.ts";
import { repositoryCommitAt } from "../src/git/repository.ts";
import { commitEverything, newRepository, writeFiles } from "./git-fixtures.ts";

describe("plainHeadCommitAt", () => {
  it("gives repositoryCommitAt's answer for HEAD: a loose ref, a packed ref, a detached HEAD, a subfolder", async () => {
    const root = await newRepository({ "src/app.ts": "export {};\n" });
    const expected = await repositoryCommitAt(root, "HEAD");
    assert.ok(expected);
    assert.deepEqual(plainHeadCommitAt(root, "HEAD"), expected);
    assert.deepEqual(plainHeadCommitAt(join(root, "src"), "HEAD"), expected);
    await git(["pack-refs", "--all"], root);
    assert.throws(() => readFileSync(join(root, ".git", "refs", "heads", "main")), /ENOENT/);
    assert.deepEqual(plainHeadCommitAt(root, "HEAD"), expected);
    await writeFiles(root, { "second.txt": "2\n" });
    await commitEverything(root, "second");
    const moved = await repositoryCommitAt(root, "HEAD");
    assert.notEqual(moved?.commit, expected.commit);
    assert.deepEqual(plainHeadCommitAt(root, "HEAD"), moved);
    await git(["checkout", "--quiet", "--detach", "HEAD~1"], root);
    assert.deepEqual(plainHeadCommitAt(root, "HEAD"), expected);
    assert.deepEqual(await repositoryCommitAt(root, "HEAD"), expected);
  });

  it("steps aside for a packed object, another commit-ish, and a path that is no plain repository", async () => {
    const root = await newRepository();
    assert.ok(plainHeadCommitAt(root, "HEAD"));
    for (const commitish of ["main", "HEAD~0", "head", ""])
      assert.equal(plainHeadCommitAt(root, commitish), undefined);
    assert.equal(plainHeadCommitAt(join(root, "missing"), "HEAD"), undefined);
    assert.equal(plainHeadCommitAt(join(root, ".git"), "HEAD"), undefined);
    await git(["gc", "--quiet"], root);
    assert.equal(plainHeadCommitAt(root, "HEAD"), undefined, "the commit is in a pack now: git's to read");
    assert.ok(await repositoryCommitAt(root, "HEAD"));
  });

  it("steps aside where git refuses or could peel otherwise: a branch naming a tree, an unborn branch, replace refs", async () => {
    const root = await newRepository();
    const { commit } = (await repositoryCommitAt(root, "HEAD")) ?? assert.fail("no commit");
    const tree = await git(["rev-parse", "HEAD^{tree}"], root, { trim: true });
    // A branch file written by hand to name a tree: git refuses HEAD^{commit}, and so does the reader.
    writeFileSync(join(root, ".git", "refs", "heads", "main"), `${tree}\n`);
    assert.equal(await repositoryCommitAt(root, "HEAD"), undefined);
    assert.equal(plainHeadCommitAt(root, "HEAD"), undefined);
    writeFileSync(join(root, ".git", "refs", "heads", "main"), `${commit}\n`);
    assert.equal(plainHeadCommitAt(root, "HEAD")?.commit, commit);
    mkdirSync(join(root, ".git", "refs", "replace"), { recursive: true });
    writeFileSync(join(root, ".git", "refs", "replace", commit), `${commit}\n`);
    assert.equal(plainHeadCommitAt(root, "HEAD"), undefined, "replace refs: git's to peel");
    await git(["update-ref", "-d", `refs/replace/${commit}`], root);
    assert.equal(plainHeadCommitAt(root, "HEAD")?.commit, commit);
    await git(["checkout", "--quiet", "--orphan", "unborn"], root);
    assert.equal(await repositoryCommitAt(root, "HEAD"), undefined);
    assert.equal(plainHeadCommitAt(root, "HEAD"), undefined);
  });

  it("steps aside for a damaged loose object instead of throwing", async () => {
    const root = await newRepository();
    const { commit } = (await repositoryCommitAt(root, "HEAD")) ?? assert.fail("no commit");
    const object = join(root, ".git", "objects", commit.slice(0, 2), commit.slice(2));
    const stored = readFileSync(object);
    chmodSync(object, 0o644);
    writeFileSync(object, stored.subarray(0, 8));
    assert.equal(plainHeadCommitAt(root, "HEAD"), undefined);
  });
});
