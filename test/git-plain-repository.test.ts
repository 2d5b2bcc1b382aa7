/**
 * Finding the current repository without git (`plainRepositoryAt`): where it answers, its answer is
 * git's own (`rev-parse --show-toplevel` and the common git directory), and everywhere git could answer
 * otherwise it steps aside, so `resolveRepository` still gives git's answer or git's refusal.
 */
import assert from "node:assert/strict";
import { appendFileSync, chownSync, mkdirSync, renameSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, it } from "node:test";
import { UsageError } from "../src/errors.ts";
import { git, gitResult } from "../src/git/git.ts";
import { plainConfig, plainRepositoryAt } from "../src/git/plain-repository.ts";
import { resolveRepository } from "../src/git/repository.ts";
import { addWorktree } from "../src/git/worktrees.ts";
import { newFolder, newRepository, setupIdentity } from "./git-fixtures.ts";

/** git's own answer for `path`: the top level and the absolute common git directory. */
async function gitsAnswer(path: string): Promise<{ root: string; commonDirectory: string }> {
  const [commonDirectory, root] = (
    await git(["rev-parse", "--path-format=absolute", "--git-common-dir", "--show-toplevel"], path, {
      trim: true,
    })
  ).split("\n");
  return { root, commonDirectory };
}

describe("plainRepositoryAt", () => {
  it("gives git's answer from the top level, a subfolder, a symlinked path and on a detached HEAD", async () => {
    const root = await newRepository({ "src/deep/app.ts": "export {};\n" });
    const expected = { root, commonDirectory: join(root, ".git") };
    assert.deepEqual(await gitsAnswer(root), expected);
    for (const path of [root, join(root, "src"), join(root, "src", "deep")]) {
      assert.deepEqual(plainRepositoryAt(path), expected, path);
      assert.deepEqual(await gitsAnswer(path), expected, path);
    }
    const link = join(await newFolder("links"), "to-src");
    symlinkSync(join(root, "src"), link);
    assert.deepEqual(plainRepositoryAt(link), expected);
    assert.deepEqual(await gitsAnswer(link), expected);
    await git(["checkout", "--quiet", "--detach"], root);
    assert.deepEqual(plainRepositoryAt(root), expected);
    assert.deepEqual(await resolveRepository(join(root, "src")), expected);
  });

  it("finds the innermost repository, as git does", async () => {
    const outer = await newRepository();
    const inner = join(outer, "vendor", "inner");
    mkdirSync(inner, { recursive: true });
    await git(["init", "--quiet", "--initial-branch=main"], inner);
    mkdirSync(join(inner, "lib"));
    const expected = { root: inner, commonDirectory: join(inner, ".git") };
    assert.deepEqual(plainRepositoryAt(join(inner, "lib")), expected);
    assert.deepEqual(await gitsAnswer(join(inner, "lib")), expected);
  });

  it("steps aside for a linked worktree; resolveRepository still names the main worktree", async () => {
    const root = await newRepository();
    const linked = join(await newFolder("state"), "linked");
    await addWorktree(root, linked, { newBranch: "side", from: "HEAD" });
    assert.equal(plainRepositoryAt(linked), undefined);
    assert.deepEqual(await resolveRepository(linked), { root, commonDirectory: join(root, ".git") });
  });

  it("steps aside for a separate git directory, a symlinked .git and a folder inside .git", async () => {
    const separate = await newFolder("separate");
    const store = join(await newFolder("stores"), "separate.git");
    await git(["init", "--quiet", "--initial-branch=main", `--separate-git-dir=${store}`], separate);
    assert.equal(plainRepositoryAt(separate), undefined);
    assert.equal((await resolveRepository(separate)).commonDirectory, store);

    const linkedGit = await newRepository();
    const moved = join(await newFolder("moved"), "dot-git");
    renameSync(join(linkedGit, ".git"), moved);
    symlinkSync(moved, join(linkedGit, ".git"));
    assert.equal(plainRepositoryAt(linkedGit), undefined);

    const root = await newRepository();
    assert.equal(plainRepositoryAt(join(root, ".git", "refs")), undefined);
    assert.equal((await gitResult(["rev-parse", "--show-toplevel"], join(root, ".git", "refs"))).code, 128);
  });

  it("steps aside for a bare repository with worktrees; resolveRepository names the bare folder", async () => {
    const source = await newRepository();
    const bare = join(await newFolder("bare"), "project.git");
    await git(["clone", "--quiet", "--bare", source, bare], source);
    const tree = join(await newFolder("trees"), "work");
    await git(["worktree", "add", "--quiet", tree, "main"], bare);
    assert.equal(plainRepositoryAt(bare), undefined);
    assert.equal(plainRepositoryAt(tree), undefined);
    assert.deepEqual(await resolveRepository(tree), { root: bare, commonDirectory: bare });
  });

  it("steps aside when the configuration moves the worktree or makes the repository bare", async () => {
    const moved = await newRepository();
    const elsewhere = await newFolder("elsewhere");
    await git(["config", "core.worktree", elsewhere], moved);
    assert.equal(plainRepositoryAt(moved), undefined);

    const bare = await newRepository();
    await git(["config", "core.bare", "true"], bare);
    assert.equal(plainRepositoryAt(bare), undefined);

    assert.equal(plainConfig("[core]\n\trepositoryformatversion = 0\n\tbare = false\n"), true);
    assert.equal(plainConfig("[core]\n\tbare\n"), false);
    assert.equal(plainConfig("[core]\n\tbare = yes\n"), false);
    assert.equal(plainConfig("[include]\n\tpath = other.config\n"), false);
    assert.equal(plainConfig("[extensions]\n\tworktreeConfig = true\n"), false);
    assert.equal(plainConfig("[core]\n\trepositoryformatversion = 2\n"), false);
    // A key on its section's line, or continued over lines, is git's to read.
    assert.equal(plainConfig("[core] bare = true\n"), false);
    assert.equal(plainConfig("[core]\n\tbare = \\\ntrue\n"), false);

    // Git reads `[core] bare = true` as a bare repository; the answer is git's, as before.
    const sameLine = await newRepository();
    appendFileSync(join(sameLine, ".git", "config"), "[core] bare = true\n");
    assert.equal(plainRepositoryAt(sameLine), undefined);
    const resolved = await resolveRepository(sameLine);
    assert.equal(resolved.root, join(sameLine, ".git"));
  });

  it("steps aside for a repository another user owns: git's refusal stands", async (context) => {
    if (process.geteuid?.() !== 0) return context.skip("changing a folder's owner needs root");
    const root = await newRepository();
    chownSync(root, 12345, 12345);
    chownSync(join(root, ".git"), 12345, 12345);
    assert.equal(plainRepositoryAt(root), undefined);
    await assert.rejects(resolveRepository(root), (error: Error) => {
      assert.ok(error instanceof UsageError);
      assert.match(error.message, /^not a git repository: .*dubious ownership/);
      return true;
    });
  });

  it("honours GIT_CEILING_DIRECTORIES and steps aside for variables that change discovery", async () => {
    const root = await newRepository({ "a/b/file.txt": "x\n" });
    const deep = join(root, "a", "b");
    const env = { ...process.env };
    assert.deepEqual(plainRepositoryAt(deep, env), { root, commonDirectory: join(root, ".git") });
    // A ceiling between the folder and the top level: git finds nothing, and neither does this.
    assert.equal(plainRepositoryAt(deep, { ...env, GIT_CEILING_DIRECTORIES: join(root, "a") }), undefined);
    const ceiled = await gitResult(["rev-parse", "--show-toplevel"], deep, {
      env: { GIT_CEILING_DIRECTORIES: join(root, "a") },
    });
    assert.equal(ceiled.code, 128);
    for (const name of ["GIT_DISCOVERY_ACROSS_FILESYSTEM", "GIT_CONFIG_PARAMETERS", "GIT_CONFIG_COUNT"])
      assert.equal(plainRepositoryAt(deep, { ...env, [name]: "1" }), undefined, name);
    // Variables that only point git elsewhere are dropped from loopwright's git: no effect here.
    assert.deepEqual(plainRepositoryAt(deep, { ...env, GIT_DIR: "/nowhere", GIT_SSL_CAINFO: "/x" }), {
      root,
      commonDirectory: join(root, ".git"),
    });
  });

  it("answers undefined outside any repository and for a broken .git folder", async () => {
    const plain = await newFolder("plain");
    assert.equal(plainRepositoryAt(plain), undefined);
    const broken = await newFolder("broken");
    mkdirSync(join(broken, ".git"));
    writeFileSync(join(broken, ".git", "HEAD"), "ref: refs/heads/main\n");
    assert.equal(plainRepositoryAt(broken), undefined);
    await assert.rejects(resolveRepository(broken), UsageError);
    await git([...setupIdentity, "init", "--quiet"], plain);
    assert.deepEqual(plainRepositoryAt(plain), { root: plain, commonDirectory: join(plain, ".git") });
  });
});
