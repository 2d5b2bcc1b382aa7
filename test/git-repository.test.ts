import assert from "node:assert/strict";
import { join } from "node:path";
import { describe, it } from "node:test";
import { UsageError } from "../src/errors.ts";
import { GitError, git, gitResult } from "../src/git/git.ts";
import { branchExists, defaultRemote, resolveCommit, resolveRepository } from "../src/git/repository.ts";
import { addWorktree } from "../src/git/worktrees.ts";
import { newFolder, newRepository, setupIdentity, writeFiles } from "./git-fixtures.ts";

describe("git", () => {
  it("throws a GitError naming git's message and the command", async () => {
    const root = await newRepository();
    await assert.rejects(git(["rev-parse", "--verify", "no-such-ref"], root), (error: Error) => {
      assert.ok(error instanceof GitError);
      assert.match(
        error.message,
        /^fatal: Needed a single revision \(git rev-parse --verify no-such-ref in /,
      );
      return true;
    });
  });

  it("returns the exit code and output instead when asked", async () => {
    const root = await newRepository();
    const result = await gitResult(["rev-parse", "--verify", "no-such-ref"], root);
    assert.equal(result.code, 128);
    assert.match(result.stderr, /Needed a single revision/);
    assert.equal(await git(["rev-parse", "--abbrev-ref", "HEAD"], root), "main\n");
    assert.equal(await git(["rev-parse", "--abbrev-ref", "HEAD"], root, { trim: true }), "main");
  });

  it("feeds input on stdin", async () => {
    const root = await newRepository();
    const sha = await git(["hash-object", "--stdin"], root, { input: "hello\n", trim: true });
    assert.equal(sha, "ce013625030ba8dba906f756967f9e9ca394464a");
  });
});

describe("resolveRepository", () => {
  it("finds the main worktree from a subfolder and from a linked worktree", async () => {
    const root = await newRepository({ "src/app.ts": "export {};\n" });
    const fromSubfolder = await resolveRepository(join(root, "src"));
    assert.deepEqual(fromSubfolder, { root, commonDirectory: join(root, ".git") });

    const linked = join(await newFolder("state"), "linked");
    await addWorktree(root, linked, { newBranch: "side", from: "HEAD" });
    assert.deepEqual(await resolveRepository(linked), { root, commonDirectory: join(root, ".git") });
  });

  it("rejects a folder that is not a repository, and a missing path", async () => {
    const plain = await newFolder("plain");
    await assert.rejects(resolveRepository(plain), (error: Error) => {
      assert.ok(error instanceof UsageError);
      assert.equal(error.message, `not a git repository: ${plain}`);
      return true;
    });
    const missing = join(plain, "does-not-exist");
    await assert.rejects(resolveRepository(missing), new UsageError(`not a git repository: ${missing}`));
  });
});

describe("resolveCommit", () => {
  it("resolves branches and relative revisions to full SHAs", async () => {
    const root = await newRepository();
    const head = await git(["rev-parse", "HEAD"], root, { trim: true });
    assert.equal(await resolveCommit(root, "main"), head);
    await writeFiles(root, { "second.txt": "2\n" });
    await git(["add", "--all"], root);
    await git([...setupIdentity, "commit", "--quiet", "-m", "second"], root);
    assert.equal(await resolveCommit(root, "HEAD~1"), head);
  });

  it("names the unknown base and the repository", async () => {
    const root = await newRepository();
    await assert.rejects(resolveCommit(root, "nope"), new UsageError(`unknown base 'nope' in ${root}`));
    await assert.rejects(resolveCommit(root, "--all"), UsageError);
  });

  it("says when the repository has no commits at all", async () => {
    const root = await newFolder("empty");
    await git(["init", "--quiet", "--initial-branch=main"], root);
    await assert.rejects(
      resolveCommit(root, "HEAD"),
      /unknown base 'HEAD' in .*: the repository has no commits yet/,
    );
  });
});

describe("branchExists", () => {
  it("answers for local branches only", async () => {
    const root = await newRepository();
    assert.equal(await branchExists(root, "main"), true);
    assert.equal(await branchExists(root, "loop/other"), false);
  });
});

describe("defaultRemote", () => {
  it("prefers the upstream's remote, then origin, then the only remote", async () => {
    const root = await newRepository();
    assert.equal(await defaultRemote(root), undefined);
    await git(["remote", "add", "fork", "https://example.invalid/fork.git"], root);
    assert.equal(await defaultRemote(root), "fork");
    await git(["remote", "add", "origin", "https://example.invalid/origin.git"], root);
    assert.equal(await defaultRemote(root), "origin");
    await git(["config", "branch.main.remote", "fork"], root);
    assert.equal(await defaultRemote(root), "fork");
    await git(["remote", "add", "third", "https://example.invalid/third.git"], root);
    await git(["config", "--unset", "branch.main.remote"], root);
    await git(["remote", "remove", "origin"], root);
    assert.equal(await defaultRemote(root), undefined);
  });

  it("works on a detached HEAD", async () => {
    const root = await newRepository();
    await git(["remote", "add", "origin", "https://example.invalid/origin.git"], root);
    await git(["checkout", "--quiet", "--detach"], root);
    assert.equal(await defaultRemote(root), "origin");
  });
});
