import assert from "node:assert/strict";
import { access, chmod, readFile, rm } from "node:fs/promises";
import { join } from "node:path";
import { describe, it } from "node:test";
import { commitAll, headSha, preserveWork, readTrailers } from "../src/git/commits.ts";
import { git, gitResult } from "../src/git/git.ts";
import { addWorktree } from "../src/git/worktrees.ts";
import { checkoutState, newFolder, newRepository, writeFiles } from "./git-fixtures.ts";

/** A repository with a loop worktree on branch `loop`; the user's checkout has unsaved edits. */
async function setUp(files?: Record<string, string>) {
  const root = await newRepository(files);
  const worktree = join(await newFolder("state"), "maker");
  await addWorktree(root, worktree, { newBranch: "loop", from: "HEAD" });
  await writeFiles(root, { "README.md": "# the user's own edit\n", "draft.txt": "user's untracked file\n" });
  await git(["add", "draft.txt"], root);
  return { root, worktree, before: await checkoutState(root) };
}

async function author(worktree: string, sha: string): Promise<string> {
  return git(["log", "-1", "--format=%an <%ae>|%cn <%ce>", sha], worktree, { trim: true });
}

describe("commitAll", () => {
  it("commits everything in the worktree and leaves the user's checkout untouched", async () => {
    const { root, worktree, before } = await setUp({
      "README.md": "# demo\n",
      "old-name.ts": "export const a = 1;\n",
      ".gitignore": "node_modules/\n",
    });
    const base = await headSha(worktree);
    await writeFiles(worktree, {
      "README.md": "# demo, improved\n",
      "src/new.ts": "export const b = 2;\n",
      "node_modules/x.js": "ignored\n",
    });
    await rm(join(worktree, "old-name.ts"));

    const outcome = await commitAll(worktree, {
      message: "loopwright: iteration 1",
      trailers: { "Loopwright-Loop": "demo", "Loopwright-Iteration": "1" },
    });

    assert.equal(outcome.committed, true);
    assert.notEqual(outcome.sha, base);
    assert.deepEqual(outcome.files, ["README.md", "old-name.ts", "src/new.ts"]);
    assert.equal(await git(["rev-parse", "loop"], root, { trim: true }), outcome.sha);
    assert.equal(await git(["rev-parse", `${outcome.sha}~1`], worktree, { trim: true }), base);
    assert.deepEqual(await readTrailers(worktree, outcome.sha), {
      "Loopwright-Loop": "demo",
      "Loopwright-Iteration": "1",
    });
    assert.equal(
      await git(["log", "-1", "--format=%s", outcome.sha], worktree, { trim: true }),
      "loopwright: iteration 1",
    );
    assert.deepEqual(await checkoutState(root), before);
    assert.equal(await readFile(join(root, "README.md"), "utf8"), "# the user's own edit\n");
  });

  it("makes no commit when nothing changed", async () => {
    const { worktree } = await setUp();
    const head = await headSha(worktree);
    await writeFiles(worktree, { "node_modules/only-ignored.js": "x\n" });
    const outcome = await commitAll(worktree, { message: "nothing", trailers: {} });
    assert.deepEqual(outcome, { sha: head, committed: false, files: [] });
    assert.deepEqual(await readTrailers(worktree, head), {});
  });

  it("uses the loopwright identity only when none is configured, without writing config", async () => {
    const { worktree } = await setUp();
    await writeFiles(worktree, { "a.txt": "a\n" });
    const outcome = await commitAll(worktree, { message: "first" });
    assert.equal(
      await author(worktree, outcome.sha),
      "loopwright <loopwright@localhost>|loopwright <loopwright@localhost>",
    );
    assert.equal((await gitResult(["config", "--get", "user.name"], worktree)).code, 1);
    assert.equal((await gitResult(["config", "--get", "user.email"], worktree)).code, 1);
  });

  it("keeps a configured identity", async () => {
    const { root, worktree } = await setUp();
    await git(["config", "user.name", "Ada Lovelace"], root);
    await git(["config", "user.email", "ada@example.com"], root);
    await writeFiles(worktree, { "a.txt": "a\n" });
    const outcome = await commitAll(worktree, { message: "first" });
    assert.equal(
      await author(worktree, outcome.sha),
      "Ada Lovelace <ada@example.com>|Ada Lovelace <ada@example.com>",
    );
  });

  it("runs none of the repository's hooks", async () => {
    const { root, worktree } = await setUp();
    const marker = join(await newFolder("hooks"), "post-commit-ran");
    const hooks = join(root, ".git", "hooks");
    await writeFiles(hooks, {
      "pre-commit": "#!/bin/sh\nexit 1\n",
      "commit-msg": "#!/bin/sh\nexit 1\n",
      "post-commit": `#!/bin/sh\ntouch '${marker}'\n`,
    });
    for (const name of ["pre-commit", "commit-msg", "post-commit"]) await chmod(join(hooks, name), 0o755);
    await writeFiles(worktree, { "a.txt": "a\n" });
    const outcome = await commitAll(worktree, { message: "with hooks installed" });
    assert.equal(outcome.committed, true);
    await assert.rejects(access(marker));
  });
});

describe("preserveWork", () => {
  it("snapshots modified and untracked files under a ref and leaves the worktree as it was", async () => {
    const { worktree } = await setUp();
    const head = await headSha(worktree);
    await writeFiles(worktree, {
      "README.md": "# half-done edit\n",
      "staged.txt": "staged\n",
      "src/untracked.ts": "export {};\n",
      "node_modules/ignored.js": "ignored\n",
    });
    await git(["add", "staged.txt"], worktree);
    const status = await git(["status", "--porcelain=v1", "--untracked-files=all"], worktree);

    const ref = "refs/loopwright/demo/interrupted-3";
    const sha = await preserveWork(worktree, ref, "loopwright: work interrupted in iteration 3");

    assert.ok(sha);
    assert.equal(await git(["rev-parse", ref], worktree, { trim: true }), sha);
    assert.equal(await git(["rev-parse", `${sha}^`], worktree, { trim: true }), head);
    assert.equal(await git(["show", `${sha}:README.md`], worktree), "# half-done edit\n");
    assert.equal(await git(["show", `${sha}:src/untracked.ts`], worktree), "export {};\n");
    assert.equal(await git(["show", `${sha}:staged.txt`], worktree), "staged\n");
    assert.equal((await gitResult(["cat-file", "-e", `${sha}:node_modules/ignored.js`], worktree)).code, 128);
    assert.equal(await git(["status", "--porcelain=v1", "--untracked-files=all"], worktree), status);
    assert.equal(await headSha(worktree), head);
    assert.equal(await readFile(join(worktree, "README.md"), "utf8"), "# half-done edit\n");
  });

  it("returns undefined when there is nothing to preserve", async () => {
    const { worktree } = await setUp();
    await writeFiles(worktree, { "node_modules/ignored.js": "ignored\n" });
    assert.equal(await preserveWork(worktree, "refs/loopwright/demo/interrupted-1", "nothing"), undefined);
    assert.equal(
      (await gitResult(["rev-parse", "--verify", "refs/loopwright/demo/interrupted-1"], worktree)).code,
      128,
    );
  });
});
