/**
 * `missingIndexPaths` lists what `git diff-files --diff-filter=D` lists, read from the index file without git,
 * or gives no answer (the caller asks git) for an index it is not sure of; and `checkOut` keeps every
 * tracked file when a gate moved a tracked folder behind an ignored symlink, whichever of the two listed
 * the missing files (a small index read here, a large one or a version-4 one listed by git).
 */
import assert from "node:assert/strict";
import {
  lstat,
  mkdir,
  readdir,
  readFile,
  rename,
  rm,
  stat,
  symlink,
  utimes,
  writeFile,
} from "node:fs/promises";
import { join } from "node:path";
import { describe, it } from "node:test";
import { git } from "../src/git/git.ts";
import { checkOut, openLoopRepository } from "../src/git/loop-repository.ts";
import { maximumIndexEntries, missingIndexPaths } from "../src/git/missing-index-paths.ts";
import { commitEverything, newFolder, newRepository, writeFiles } from "./git-fixtures.ts";

const indexOf = (root: string) => join(root, ".git", "index");
const byGit = async (root: string) =>
  (await git(["diff-files", "--name-only", "-z", "--diff-filter=D"], root))
    .split("\0")
    .filter((path) => path !== "")
    .sort();
const byReader = (root: string, hashBytes: 20 | 32 = 20) =>
  missingIndexPaths(indexOf(root), root, hashBytes)
    ?.map((path) => path.toString("utf8"))
    .sort();

describe("missingIndexPaths", () => {
  it("lists what git diff-files lists as deleted: deleted files, files behind a removed folder, names beyond ASCII, long paths, a file replaced by a folder", async () => {
    const root = await newRepository({
      "a.txt": "a\n",
      "dir/b.txt": "b\n",
      "dir/deep/c.txt": "c\n",
      "é/ü ñ.txt": "u\n",
      [`${"a-long-folder-name/".repeat(20)}file.txt`]: "l\n",
      "kept.txt": "k\n",
    });
    assert.deepEqual(byReader(root), []);
    await rm(join(root, "a.txt"));
    await rm(join(root, "dir/deep"), { recursive: true });
    await rm(join(root, "é/ü ñ.txt"));
    await rm(join(root, "kept.txt"));
    await mkdir(join(root, "kept.txt"));
    await rm(join(root, "a-long-folder-name"), { recursive: true });
    assert.deepEqual(byReader(root), await byGit(root));
    assert.deepEqual(
      byReader(root),
      [
        "a.txt",
        "dir/deep/c.txt",
        "é/ü ñ.txt",
        "kept.txt",
        `${"a-long-folder-name/".repeat(20)}file.txt`,
      ].sort(),
    );
  });

  it("does not look through a symlinked folder, as git does not (ls-files --deleted would): its files are missing, dangling or not", async () => {
    const root = await newRepository({ "tests/a.js": "a\n", "tests/deep/b.js": "b\n", "top.txt": "t\n" });
    const elsewhere = join(await newFolder("elsewhere"), "tests");
    await rename(join(root, "tests"), elsewhere);
    await symlink(elsewhere, join(root, "tests"));
    assert.deepEqual(byReader(root), await byGit(root));
    assert.deepEqual(byReader(root), ["tests/a.js", "tests/deep/b.js"]);
    await rm(join(root, "tests"));
    await mkdir(join(root, "tests"));
    await symlink(join(elsewhere, "deep"), join(root, "tests", "deep"));
    await writeFile(join(root, "tests", "a.js"), "a\n");
    assert.deepEqual(byReader(root), ["tests/deep/b.js"]);
    assert.deepEqual(byReader(root), await byGit(root));
    await rm(elsewhere, { recursive: true });
    assert.deepEqual(byReader(root), await byGit(root));
  });

  it("gives no answer for an index of version 4, a split index, extended entries, a damaged or missing file, or the wrong hash size", async () => {
    const root = await newRepository({ "a.txt": "a\n", "b.txt": "b\n" });
    assert.deepEqual(byReader(root), []);
    assert.equal(byReader(root, 32), undefined, "SHA-256 sizes do not fit a SHA-1 index");
    const bytes = await readFile(indexOf(root));
    await writeFile(indexOf(root), bytes.subarray(0, bytes.length - 30));
    assert.equal(byReader(root), undefined, "truncated");
    await writeFile(indexOf(root), bytes);
    await git(["update-index", "--index-version", "4"], root);
    assert.equal(byReader(root), undefined, "version 4");
    await git(["update-index", "--index-version", "3"], root);
    assert.deepEqual(byReader(root), [], "version 3 without extended entries");
    await git(["update-index", "--skip-worktree", "a.txt"], root);
    assert.equal(byReader(root), undefined, "an extended entry (skip-worktree)");
    await git(["update-index", "--no-skip-worktree", "a.txt"], root);
    await git(["update-index", "--index-version", "2"], root);
    await git(["update-index", "--split-index"], root);
    await git(["update-index", "--add", "--cacheinfo", `100644,${await blob(root)},c.txt`], root);
    assert.equal(byReader(root), undefined, "a split index");
    assert.equal(missingIndexPaths(join(root, "no-such-index"), root, 20), undefined);
  });

  it("reads a SHA-256 repository's index", async () => {
    const root = await newFolder("sha256");
    await git(["init", "--quiet", "--object-format=sha256"], root);
    await writeFiles(root, { "a.txt": "a\n", "dir/b.txt": "b\n" });
    await git(["add", "--all"], root);
    assert.deepEqual(byReader(root, 32), []);
    await rm(join(root, "dir"), { recursive: true });
    assert.deepEqual(byReader(root, 32), ["dir/b.txt"]);
    assert.equal(byReader(root, 20), undefined);
  });

  it("leaves an index of more than the maximum entries to git", async () => {
    const files: Record<string, string> = {};
    for (let index = 0; index <= maximumIndexEntries; index++) files[`f/${index}.txt`] = `${index}\n`;
    const root = await newRepository(files);
    assert.equal(byReader(root), undefined);
  });
});

async function blob(root: string): Promise<string> {
  return git(["hash-object", "-w", "--stdin"], root, { input: "c\n", trim: true });
}

describe("checkOut over an ignored symlink where a tracked folder was", () => {
  for (const shape of ["small index", "large index", "index version 4"] as const) {
    it(`keeps every tracked file through the recheck and the next commit's checkout (${shape})`, async () => {
      const files: Record<string, string> = {
        "tests/a.test.js": "a\n",
        "tests/b.test.js": "b\n",
        "top.txt": "t\n",
      };
      if (shape === "large index")
        for (let index = 0; index <= maximumIndexEntries; index++) files[`many/${index}.txt`] = `${index}\n`;
      const root = await newRepository(files);
      await writeFiles(root, { ".gitignore": "tests\n" });
      const first = await commitEverything(root, "ignore the folder's name");
      await writeFiles(root, { "tests/a.test.js": "a2\n" });
      const second = await commitEverything(root, "change one test");
      const repository = await openLoopRepository(root, join(await newFolder("private"), "git"));
      const gates = join(await newFolder("gates"), "checkout");
      const saved = process.env.GIT_INDEX_VERSION;
      if (shape === "index version 4") process.env.GIT_INDEX_VERSION = "4";
      try {
        await checkOut(repository, gates, "gates", first, { detached: true });
        const moved = join(await newFolder("elsewhere"), "tests");
        await rename(join(gates, "tests"), moved);
        await symlink(moved, join(gates, "tests"));
        await checkOut(repository, gates, "gates", first, { detached: true });
        assert.deepEqual((await readdir(join(gates, "tests"))).sort(), ["a.test.js", "b.test.js"]);
        // Between the checkouts the gate replaces the folder by the symlink again, and a tracked file by a folder.
        await rm(join(gates, "tests"), { recursive: true });
        await symlink(moved, join(gates, "tests"));
        await rm(join(gates, "top.txt"));
        await mkdir(join(gates, "top.txt"));
        await writeFile(join(gates, "top.txt", "inside"), "x\n");
        await checkOut(repository, gates, "gates", second, { detached: true });
        assert.ok((await lstat(join(gates, "tests"))).isDirectory());
        assert.equal(await readFile(join(gates, "tests", "a.test.js"), "utf8"), "a2\n");
        assert.equal(await readFile(join(gates, "tests", "b.test.js"), "utf8"), "b\n");
        assert.equal(await readFile(join(gates, "top.txt"), "utf8"), "t\n");
        assert.equal(await git(["ls-files", "--deleted"], gates), "");
        assert.equal(await git(["status", "--porcelain"], gates), "");
        assert.equal(
          await readFile(join(moved, "a.test.js"), "utf8"),
          "a\n",
          "nothing written through the symlink",
        );
      } finally {
        if (saved === undefined) delete process.env.GIT_INDEX_VERSION;
        else process.env.GIT_INDEX_VERSION = saved;
      }
    });
  }
});

describe("checkOut after a gate's racy edit", () => {
  it("writes back a tracked file edited to the same size and given back its mtime, right after the checkout", async () => {
    const root = await newRepository({ "a.txt": "aaaa\n", "b.txt": "b\n" });
    const sha = await git(["rev-parse", "HEAD"], root, { trim: true });
    const repository = await openLoopRepository(root, join(await newFolder("private"), "git"));
    const gates = join(await newFolder("gates"), "checkout");
    await checkOut(repository, gates, "gates", sha, { detached: true });
    const before = await stat(join(gates, "a.txt"));
    await writeFile(join(gates, "a.txt"), "bbbb\n");
    await utimes(join(gates, "a.txt"), before.atime, before.mtime);
    await checkOut(repository, gates, "gates", sha, { detached: true });
    assert.equal(await readFile(join(gates, "a.txt"), "utf8"), "aaaa\n");
    assert.equal(await git(["status", "--porcelain"], gates), "");
  });
});

describe("checkOut after a gate hid its changes from clean and read-tree", () => {
  for (const shape of ["small index", "large index", "index version 4"] as const) {
    const prepare = async (ignoreTests = false) => {
      const files: Record<string, string> = {
        "tests/a.test.js": "a\n",
        "tests/b.test.js": "b\n",
        ".gitignore": "node_modules/\n",
      };
      if (shape === "large index")
        for (let index = 0; index <= maximumIndexEntries; index++) files[`many/${index}.txt`] = `${index}\n`;
      const root = await newRepository(files);
      // Tracked files stay tracked under a .gitignore that names their folder (a build output kept in git).
      if (ignoreTests) await writeFiles(root, { ".gitignore": "node_modules/\ntests\n" });
      const first = ignoreTests
        ? await commitEverything(root, "ignore the folder")
        : await git(["rev-parse", "HEAD"], root, { trim: true });
      await writeFiles(root, { "app.js": "x\n" });
      const second = await commitEverything(root, "the maker leaves tests/ alone");
      const repository = await openLoopRepository(root, join(await newFolder("private"), "git"));
      const gates = join(await newFolder("gates"), "checkout");
      return { repository, gates, first, second };
    };
    const withShape = async (run: () => Promise<void>) => {
      const saved = process.env.GIT_INDEX_VERSION;
      if (shape === "index version 4") process.env.GIT_INDEX_VERSION = "4";
      try {
        await run();
      } finally {
        if (saved === undefined) delete process.env.GIT_INDEX_VERSION;
        else process.env.GIT_INDEX_VERSION = saved;
      }
    };
    const assertExact = async (gates: string) => {
      assert.ok((await lstat(join(gates, "tests"))).isDirectory(), "tests/ is a real folder again");
      assert.deepEqual((await readdir(join(gates, "tests"))).sort(), ["a.test.js", "b.test.js"]);
      assert.equal(await git(["status", "--porcelain", "--ignored"], gates), "");
    };

    it(`a tracked folder moved behind a relative symlink that the gate's own .gitignore edit hid (${shape})`, async () => {
      const { repository, gates, first, second } = await prepare();
      await withShape(async () => {
        await checkOut(repository, gates, "gates", first, { detached: true });
        await mkdir(join(gates, ".cache"));
        await rename(join(gates, "tests"), join(gates, ".cache", "tests"));
        await writeFile(join(gates, ".cache", "tests", "a.test.js"), "emptied\n");
        await symlink(".cache/tests", join(gates, "tests"));
        await writeFile(join(gates, ".gitignore"), "node_modules/\n/tests\n/.cache/\n");
        await checkOut(repository, gates, "gates", second, { detached: true });
        await assertExact(gates);
        assert.equal(await readFile(join(gates, "tests", "a.test.js"), "utf8"), "a\n");
      });
    });

    it(`a tracked folder the project itself ignores, moved behind a symlink (${shape})`, async () => {
      const { repository, gates, first, second } = await prepare(true);
      await withShape(async () => {
        await checkOut(repository, gates, "gates", first, { detached: true });
        const moved = join(await newFolder("moved"), "tests");
        await rename(join(gates, "tests"), moved);
        await symlink(moved, join(gates, "tests"));
        await checkOut(repository, gates, "gates", second, { detached: true });
        assert.ok((await lstat(join(gates, "tests"))).isDirectory(), "tests/ is a real folder again");
        assert.deepEqual((await readdir(join(gates, "tests"))).sort(), ["a.test.js", "b.test.js"]);
        assert.equal(await git(["status", "--porcelain"], gates), "");
      });
    });

    it(`an untracked file the gate's own .gitignore edit hid from clean (${shape})`, async () => {
      const { repository, gates, first, second } = await prepare();
      await withShape(async () => {
        await checkOut(repository, gates, "gates", first, { detached: true });
        await writeFile(join(gates, "conftest.py"), "# marks every test passed\n");
        await writeFile(join(gates, ".gitignore"), "node_modules/\n/conftest.py\n");
        await checkOut(repository, gates, "gates", second, { detached: true });
        await assert.rejects(stat(join(gates, "conftest.py")), { code: "ENOENT" });
        await assertExact(gates);
      });
    });
  }
});

describe("checkOut after a gate planted files under a .gitignore of its own", () => {
  it("an untracked .gitignore that ignores itself and what it sits beside does not keep them", async () => {
    const root = await newRepository({ "tests/a.test.js": "a\n", ".gitignore": "node_modules/\n" });
    const first = await git(["rev-parse", "HEAD"], root, { trim: true });
    await writeFiles(root, { "app.js": "x\n" });
    const second = await commitEverything(root, "the maker leaves tests/ alone");
    const repository = await openLoopRepository(root, join(await newFolder("private"), "git"));
    const gates = join(await newFolder("gates"), "checkout");
    await checkOut(repository, gates, "gates", first, { detached: true });
    // Beside tracked files, and in a folder of its own; one level down, and two.
    await writeFile(join(gates, "tests", ".gitignore"), "*\n");
    await writeFile(join(gates, "tests", "conftest.py"), "# marks every test passed\n");
    await mkdir(join(gates, "evil", "deeper"), { recursive: true });
    await writeFile(join(gates, "evil", ".gitignore"), "*\n");
    await writeFile(join(gates, "evil", "deeper", ".gitignore"), "*\n");
    await writeFile(join(gates, "evil", "deeper", "plugin.js"), "// loaded by the next gates\n");
    // Files the project itself ignores stay, by design (installed dependencies).
    await mkdir(join(gates, "node_modules", "dep"), { recursive: true });
    await writeFile(join(gates, "node_modules", "dep", "index.js"), "// installed\n");
    await writeFile(join(gates, "node_modules", "dep", ".gitignore"), "*\n");
    await checkOut(repository, gates, "gates", second, { detached: true });
    await assert.rejects(stat(join(gates, "tests", "conftest.py")), { code: "ENOENT" });
    await assert.rejects(stat(join(gates, "tests", ".gitignore")), { code: "ENOENT" });
    await assert.rejects(stat(join(gates, "evil")), { code: "ENOENT" });
    assert.equal(await readFile(join(gates, "node_modules", "dep", "index.js"), "utf8"), "// installed\n");
    assert.equal(await git(["status", "--porcelain"], gates), "");
  });
});

describe("checkOut after a gate wrote into a submodule's folder", () => {
  it("leaves the folder empty, as a fresh checkout has it, without following a symlink planted there", async () => {
    const root = await newRepository({ "a.test.js": "a\n" });
    const commit = await git(["rev-parse", "HEAD"], root, { trim: true });
    await git(["update-index", "--add", "--cacheinfo", `160000,${commit},mod`], root);
    await mkdir(join(root, "mod"));
    const first = await commitEverything(root, "a submodule");
    await writeFiles(root, { "app.js": "x\n" });
    const second = await commitEverything(root, "next");
    const repository = await openLoopRepository(root, join(await newFolder("private"), "git"));
    const gates = join(await newFolder("gates"), "checkout");
    await checkOut(repository, gates, "gates", first, { detached: true });
    assert.deepEqual(await readdir(join(gates, "mod")), []);
    const outside = await newFolder("outside");
    await writeFile(join(outside, "kept.txt"), "outside\n");
    await mkdir(join(gates, "mod", "deep"), { recursive: true });
    await writeFile(join(gates, "mod", "deep", "planted.test.js"), "evil\n");
    await symlink(outside, join(gates, "mod", "link"));
    await checkOut(repository, gates, "gates", second, { detached: true });
    assert.deepEqual(await readdir(join(gates, "mod")), []);
    assert.equal(await readFile(join(outside, "kept.txt"), "utf8"), "outside\n");
  });
});
