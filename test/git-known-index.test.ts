/**
 * The maker's checkout, whose private index this process left holding a tree, is checked with one
 * `git ls-files` before its turn, and everything that listing must see sends it to the full git work: an edit, a mode change, a deletion, a new file, an empty folder, an index
 * another process rewrote. The gates' recheck has no such listing (a listing compares content; a
 * checkout must also rewrite files whose stat a gate changed: its own shortcut, for a checkout a gate
 * left untouched, is untouched-checkout.ts's, tested in git-checkout-untouched.test.ts); the tracked files missing after it are
 * read from its index without git, and its clean after read-tree runs unless the ignore rules provably
 * did not change (a tracked .gitignore edited, back-dated, replaced by a link, behind a linked folder or
 * deleted, or a planted one the first clean removed, all send it). And the diffs of a commit's tree, printed while the commit is made, filed
 * under the commit: exactly what `diffText` prints for it, which then runs no git. Counted with
 * LOOPWRIGHT_GIT_TRACE (read when git.ts loads: set first, then the modules are imported).
 */
import assert from "node:assert/strict";
import {
  chmod,
  link,
  lstat,
  mkdir,
  mkdtemp,
  readFile,
  rm,
  stat,
  symlink,
  utimes,
  writeFile,
} from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, it } from "node:test";

const traceFolder = await mkdtemp(join(tmpdir(), "loopwright-known-index-"));
const trace = join(traceFolder, "trace");
process.env.LOOPWRIGHT_GIT_TRACE = trace;
const { git } = await import("../src/git/git.ts");
const { checkOut, openLoopRepository, snapshotTree } = await import("../src/git/loop-repository.ts");
const { commitEverything, newFolder, newRepository, writeFiles } = await import("./git-fixtures.ts");
const { diffText, rememberDiff, treeDiffTexts } = await import("../src/git/diffs.ts");

/** The git subcommands `work` ran (`git` calls of the test itself included). */
async function gitRunBy(work: () => Promise<unknown>): Promise<string[]> {
  await writeFile(trace, "");
  await work();
  return (await readFile(trace, "utf8"))
    .split("\n")
    .filter(Boolean)
    .map((line) => line.split(" ")[1]);
}

async function makerAtCommit() {
  const root = await newRepository({ "a.txt": "a\n", "run.sh": "echo\n", ".gitignore": "ignored/\n" });
  const sha = await git(["rev-parse", "HEAD"], root, { trim: true });
  const tree = await git(["rev-parse", `${sha}^{tree}`], root, { trim: true });
  const repository = await openLoopRepository(root, join(await newFolder("private"), "git"));
  const maker = join(await newFolder("maker"), "checkout");
  await checkOut(repository, maker, "maker", sha, { branch: "loop/x" });
  // As the last iteration's commit does: the snapshot leaves the index holding the tree.
  assert.equal(await snapshotTree(repository, maker, "maker"), tree);
  return { root, sha, tree, repository, maker };
}

describe("snapshotTree before the maker, on the index the last snapshot left", () => {
  it("runs one ls-files when nothing changed (ignored files aside), and returns the tree", async () => {
    const { tree, repository, maker } = await makerAtCommit();
    await writeFiles(maker, { "ignored/cache.bin": "kept\n" });
    const ran = await gitRunBy(async () => {
      assert.equal(await snapshotTree(repository, maker, "maker", { cleanIfTree: tree }), tree);
    });
    assert.deepEqual(ran, ["ls-files"]);
    assert.equal(await readFile(join(maker, "ignored", "cache.bin"), "utf8"), "kept\n");
  });

  it("runs no git when the checkout is provably untouched since the snapshot (untouched-checkout.ts)", async () => {
    const { tree, repository, maker } = await makerAtCommit();
    const ran = await gitRunBy(async () => {
      assert.equal(await snapshotTree(repository, maker, "maker", { cleanIfTree: tree }), tree);
    });
    assert.deepEqual(ran, []);
  });

  const changes: [string, (maker: string) => Promise<void>][] = [
    ["an edit of the same size", (maker) => writeFile(join(maker, "a.txt"), "b\n")],
    ["a mode change", (maker) => chmod(join(maker, "run.sh"), 0o755)],
    ["a deletion", (maker) => rm(join(maker, "a.txt"))],
    ["a new file", (maker) => writeFile(join(maker, "new.txt"), "new\n")],
  ];
  for (const [what, change] of changes) {
    it(`snapshots in full after ${what}: the tree is the files', nothing cleaned`, async () => {
      const { root, tree, repository, maker } = await makerAtCommit();
      await change(maker);
      let left = "";
      const ran = await gitRunBy(async () => {
        left = await snapshotTree(repository, maker, "maker", { cleanIfTree: tree });
      });
      assert.deepEqual(ran, ["ls-files", "add", "write-tree", "clean"]);
      assert.notEqual(left, tree);
      // The snapshot is what `git add --all` makes of the files in a throwaway index.
      const scratch = { GIT_INDEX_FILE: join(await newFolder("scratch"), "index"), GIT_WORK_TREE: maker };
      await git(["read-tree", "--empty"], root, { env: scratch });
      await git(["add", "--all"], root, { env: scratch });
      assert.equal(left, await git(["write-tree"], root, { env: scratch, trim: true }));
    });
  }

  it("cleans an empty folder, through the full snapshot", async () => {
    const { tree, repository, maker } = await makerAtCommit();
    await mkdir(join(maker, "empty", "deeper"), { recursive: true });
    const ran = await gitRunBy(async () => {
      assert.equal(await snapshotTree(repository, maker, "maker", { cleanIfTree: tree }), tree);
    });
    assert.deepEqual(ran, ["ls-files", "add", "write-tree", "clean"]);
    await assert.rejects(stat(join(maker, "empty")), { code: "ENOENT" });
  });

  it("trusts no index another process rewrote, even to the same tree", async () => {
    const { sha, tree, repository, maker } = await makerAtCommit();
    const env = {
      GIT_DIR: repository.directory,
      GIT_WORK_TREE: maker,
      GIT_INDEX_FILE: join(repository.directory, "maker.index"),
      GIT_OBJECT_DIRECTORY: repository.objectDirectory,
    };
    await git(["read-tree", sha], maker, { env });
    const ran = await gitRunBy(async () => {
      assert.equal(await snapshotTree(repository, maker, "maker", { cleanIfTree: tree }), tree);
    });
    assert.deepEqual(ran, ["add", "write-tree", "clean"]);
  });
});

describe("checkOut of the commit the index holds (the gates' recheck): read-tree in full, the clean after it only where the ignore rules may have changed", () => {
  async function gatesAtCommit() {
    const root = await newRepository({ "a.txt": "a\n", ".gitignore": "ignored/\n" });
    const first = await git(["rev-parse", "HEAD"], root, { trim: true });
    await writeFiles(root, { "a.txt": "a2\n" });
    const second = await commitEverything(root, "second");
    const repository = await openLoopRepository(root, join(await newFolder("private"), "git"));
    const gates = join(await newFolder("gates"), "checkout");
    await checkOut(repository, gates, "gates", first, { detached: true });
    await checkOut(repository, gates, "gates", second, { detached: true });
    return { first, second, repository, gates };
  }

  it("cleans and checks out in full even when the gates left nothing but ignored files", async () => {
    const { second, repository, gates } = await gatesAtCommit();
    await writeFiles(gates, { "ignored/out.log": "kept\n" });
    await writeFile(join(gates, ".git", "HEAD"), "ref: refs/heads/elsewhere\n");
    const ran = await gitRunBy(() => checkOut(repository, gates, "gates", second, { detached: true }));
    assert.deepEqual(ran, ["clean", "read-tree"]);
    assert.equal(await readFile(join(gates, ".git", "HEAD"), "utf8"), `${second}\n`);
    assert.equal(await readFile(join(gates, "ignored", "out.log"), "utf8"), "kept\n");
    assert.equal(await git(["status", "--porcelain"], gates), "");
  });

  it("rewrites a tracked file whose content matches but which a gate left read-only, back-dated and hard-linked outside", async () => {
    const { second, repository, gates } = await gatesAtCommit();
    const outside = join(await newFolder("outside"), "a.txt");
    await rm(join(gates, "a.txt"));
    await writeFile(outside, "a2\n");
    await link(outside, join(gates, "a.txt"));
    await chmod(join(gates, "a.txt"), 0o444);
    await utimes(join(gates, "a.txt"), new Date("2001-01-01"), new Date("2001-01-01"));
    await checkOut(repository, gates, "gates", second, { detached: true });
    const after = await stat(join(gates, "a.txt"));
    assert.equal(after.nlink, 1, "the checkout's file is its own, not a link to a file outside");
    assert.equal(after.mode & 0o777, 0o644 & ~process.umask());
    assert.ok(after.mtime.getFullYear() > 2001);
    await writeFile(outside, "changed outside\n");
    assert.equal(await readFile(join(gates, "a.txt"), "utf8"), "a2\n");
  });

  it("cleans and checks out in full after an edit, a new file or an empty folder", async () => {
    const { second, repository, gates } = await gatesAtCommit();
    for (const change of [
      () => writeFile(join(gates, "a.txt"), "xx\n"),
      () => writeFile(join(gates, "new.txt"), "new\n"),
      () => mkdir(join(gates, "empty")),
    ]) {
      await change();
      const ran = await gitRunBy(() => checkOut(repository, gates, "gates", second, { detached: true }));
      assert.deepEqual(ran, ["clean", "read-tree"]);
      assert.equal(await readFile(join(gates, "a.txt"), "utf8"), "a2\n");
      await assert.rejects(stat(join(gates, "new.txt")), { code: "ENOENT" });
      await assert.rejects(stat(join(gates, "empty")), { code: "ENOENT" });
      assert.equal(await git(["status", "--porcelain", "--untracked-files=all"], gates), "");
    }
  });

  // What a gate did to the ignore rules, and the file it hid from the first clean by doing it. (git reads
  // no .gitignore through a symlink: that first clean obeys no rule of the root's, ignored/ included.)
  const ruleChanges: [string, (gates: string) => Promise<string>][] = [
    [
      "an edit of a tracked .gitignore",
      async (gates) => {
        await writeFile(join(gates, ".gitignore"), "ignored/\nhidden.txt\n");
        await writeFile(join(gates, "hidden.txt"), "planted\n");
        return "hidden.txt";
      },
    ],
    [
      "an edit of a tracked .gitignore of the same size, back-dated",
      async (gates) => {
        const before = await stat(join(gates, ".gitignore"));
        await writeFile(join(gates, ".gitignore"), "i*/\nh*\n\n\n");
        assert.equal((await stat(join(gates, ".gitignore"))).size, before.size);
        await utimes(join(gates, ".gitignore"), before.atime, before.mtime);
        await writeFile(join(gates, "hidden.txt"), "planted\n");
        return "hidden.txt";
      },
    ],
    [
      "a tracked .gitignore in a folder replaced by a symlink",
      async (gates) => {
        const outside = await newFolder("outside");
        await writeFile(join(outside, ".gitignore"), "*\n");
        await writeFile(join(outside, "b.txt"), "b\n");
        await rm(join(gates, "sub"), { recursive: true });
        await symlink(outside, join(gates, "sub"));
        await writeFile(join(gates, "hidden.txt"), "planted\n");
        await writeFile(join(gates, ".gitignore"), "ignored/\nhidden.txt\n");
        return "hidden.txt";
      },
    ],
    [
      "a tracked .gitignore replaced by a symlink",
      async (gates) => {
        const outside = join(await newFolder("outside"), "rules");
        await writeFile(outside, "ignored/\nhidden.txt\n");
        await rm(join(gates, ".gitignore"));
        await symlink(outside, join(gates, ".gitignore"));
        await writeFile(join(gates, "hidden.txt"), "planted\n");
        return "hidden.txt";
      },
    ],
    [
      "a deleted tracked .gitignore",
      async (gates) => {
        await rm(join(gates, "sub", ".gitignore"));
        await writeFile(join(gates, "sub", "hidden.log"), "planted\n");
        return "sub/hidden.log";
      },
    ],
  ];
  for (const [what, change] of ruleChanges) {
    it(`cleans again after read-tree after ${what}, and removes what it hid`, async () => {
      const root = await newRepository({
        "a.txt": "a\n",
        ".gitignore": "ignored/\n",
        "sub/.gitignore": "*.tmp\n",
        "sub/b.txt": "b\n",
      });
      const sha = await git(["rev-parse", "HEAD"], root, { trim: true });
      const repository = await openLoopRepository(root, join(await newFolder("private"), "git"));
      const gates = join(await newFolder("gates"), "checkout");
      await checkOut(repository, gates, "gates", sha, { detached: true });
      await writeFiles(gates, { "ignored/out.log": "kept\n" });
      const hidden = await change(gates);
      const ran = await gitRunBy(() => checkOut(repository, gates, "gates", sha, { detached: true }));
      assert.deepEqual(ran.slice(0, 3), ["clean", "read-tree", "clean"]);
      await assert.rejects(lstat(join(gates, hidden)), { code: "ENOENT" });
      if (!what.includes("tracked .gitignore replaced by a symlink"))
        assert.equal(await readFile(join(gates, "ignored", "out.log"), "utf8"), "kept\n");
      assert.equal(await readFile(join(gates, ".gitignore"), "utf8"), "ignored/\n");
      assert.equal(await readFile(join(gates, "sub", ".gitignore"), "utf8"), "*.tmp\n");
      assert.equal(await git(["status", "--porcelain", "--untracked-files=all"], gates), "");
    });
  }

  it("cleans again after the first clean removed a .gitignore a gate planted, and removes what it hid", async () => {
    const { second, repository, gates } = await gatesAtCommit();
    await writeFiles(gates, {
      "planted/.gitignore": "*\n",
      "planted/payload.txt": "planted\n",
      "deeper/a/.gitignore": "*\n!b/\n",
      "deeper/a/b/.gitignore": "*\n",
      "deeper/a/b/payload.txt": "planted\n",
    });
    const ran = await gitRunBy(() => checkOut(repository, gates, "gates", second, { detached: true }));
    assert.deepEqual(ran.slice(0, 3), ["clean", "read-tree", "clean"]);
    await assert.rejects(lstat(join(gates, "planted")), { code: "ENOENT" });
    await assert.rejects(lstat(join(gates, "deeper")), { code: "ENOENT" });
    assert.equal(await git(["status", "--porcelain", "--untracked-files=all", "--ignored"], gates), "");
  });

  it("checks out another commit with the same .gitignore files and folders with no clean after read-tree", async () => {
    const { first, repository, gates } = await gatesAtCommit();
    await writeFiles(gates, { "ignored/out.log": "kept\n" });
    const ran = await gitRunBy(() => checkOut(repository, gates, "gates", first, { detached: true }));
    assert.deepEqual(ran, ["clean", "read-tree"]);
    assert.equal(await readFile(join(gates, "a.txt"), "utf8"), "a\n");
  });
});

describe("treeDiffTexts and rememberDiff", () => {
  it("print from trees what diffText prints for the commits holding them, then diffText runs no git", async () => {
    const root = await newRepository({ "a.txt": "a\n", "b.txt": "b\n" });
    const base = await git(["rev-parse", "HEAD"], root, { trim: true });
    await writeFiles(root, { "a.txt": "a2\n", "c.txt": "c\n" });
    await git(["mv", "b.txt", "moved.txt"], root);
    const sha = await commitEverything(root, "second");
    const treeOf = (commit: string) => git(["rev-parse", `${commit}^{tree}`], root, { trim: true });
    const [fresh, same] = await treeDiffTexts(root, [
      [await treeOf(base), await treeOf(sha)],
      [await treeOf(sha), await treeOf(sha)],
    ]);
    assert.equal(same, "");
    const alone = await diffText(root, base, sha);
    assert.equal(fresh, alone);
    assert.match(fresh, /rename from b.txt/);
    rememberDiff(root, base, sha, fresh);
    const ran = await gitRunBy(async () => assert.equal(await diffText(root, base, sha), fresh));
    assert.deepEqual(ran, []);
  });
});
