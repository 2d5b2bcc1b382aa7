/**
 * The gates' checkout of the commit it already holds (a red gate's recheck) runs no git when the gate left
 * the checkout provably untouched (untouched-checkout.ts), and only read-tree for the next commit. Every
 * way a gate can leave something behind sends it to the full checkout (clean and read-tree), after which
 * the checkout holds exactly the commit's files: an edit hidden by the same size and a restored
 * modification time, a copy with its times kept, a mode changed and changed back, a hard link made and
 * removed, a rename there and back, a deletion, a planted file (ignored or not, a .gitignore hiding one, a
 * nested repository, an empty folder), a tracked folder or file replaced by a symlink to the same names,
 * an index another process rewrote, and a mark that is not later than a recorded change (the same clock
 * tick as git's write). Counted with LOOPWRIGHT_GIT_TRACE (read when git.ts loads: set first).
 */
import assert from "node:assert/strict";
import {
  chmod,
  cp,
  link,
  lstat,
  mkdir,
  mkdtemp,
  readFile,
  readlink,
  rename,
  rm,
  stat,
  symlink,
  unlink,
  utimes,
  writeFile,
} from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, it } from "node:test";

const traceFolder = await mkdtemp(join(tmpdir(), "loopwright-untouched-"));
const trace = join(traceFolder, "trace");
process.env.LOOPWRIGHT_GIT_TRACE = trace;
const { git } = await import("../src/git/git.ts");
const { checkOut, openLoopRepository } = await import("../src/git/loop-repository.ts");
const { markIndexClock, recordIndex } = await import("../src/git/known-index.ts");
const { commitEverything, newFolder, newRepository, writeFiles } = await import("./git-fixtures.ts");

/** The git subcommands `work` ran. */
async function gitRunBy(work: () => Promise<unknown>): Promise<string[]> {
  await writeFile(trace, "");
  await work();
  return (await readFile(trace, "utf8"))
    .split("\n")
    .filter(Boolean)
    .map((line) => line.split(" ")[1]);
}

const files = {
  "a.txt": "a\n",
  "run.sh": "echo run\n",
  "src/b.txt": "b\n",
  "src/deep/c.txt": "c\n",
  ".gitignore": "*.log\nignored/\n",
};

/** The gates' checkout of a repository's second commit, as the commit step leaves it for the first gate run. */
async function gatesAtCommit() {
  const root = await newRepository(files);
  const first = await git(["rev-parse", "HEAD"], root, { trim: true });
  await writeFiles(root, { "a.txt": "A\n" });
  await symlink("a.txt", join(root, "link"));
  const second = await commitEverything(root, "second");
  const repository = await openLoopRepository(root, join(await newFolder("private"), "git"));
  const gates = join(await newFolder("gates"), "checkout");
  await checkOut(repository, gates, "gates", first, { detached: true });
  await checkOut(repository, gates, "gates", second, { detached: true });
  const index = join(repository.directory, "gates.index");
  return { root, first, second, repository, gates, index };
}

/**
 * The checkout holds exactly the commit's files: nothing changed, nothing more but the ignored files
 * `kept` (a checkout keeps ignored files, as node_modules).
 */
async function assertExactly(root: string, gates: string, sha: string, kept: string[] = []): Promise<void> {
  const listed = await git(["ls-tree", "-r", "-z", sha], root);
  const tracked = new Set<string>();
  for (const line of listed.split("\0").filter(Boolean)) {
    const [mode, , id] = line.slice(0, line.indexOf("\t")).split(" ");
    const path = line.slice(line.indexOf("\t") + 1);
    tracked.add(path);
    const expected = await git(["cat-file", "blob", id], root);
    const stats = await lstat(join(gates, path));
    if (mode === "120000") assert.equal(await readlink(join(gates, path)), expected, path);
    else {
      assert.ok(stats.isFile(), path);
      assert.equal(await readFile(join(gates, path), "utf8"), expected, path);
      assert.equal((stats.mode & 0o111) !== 0, mode === "100755", path);
    }
  }
  const status = await git(["status", "--porcelain", "--untracked-files=all", "--ignored"], gates);
  assert.equal(status, kept.map((path) => `!! ${path}\n`).join(""));
  for (const folder of ["src", "src/deep"]) assert.ok((await lstat(join(gates, folder))).isDirectory());
}

/** Edits `path` keeping its size and putting its modification time back: only its change time tells. */
async function hiddenEdit(gates: string, path: string, content: string): Promise<void> {
  const before = await stat(join(gates, path));
  await writeFile(join(gates, path), content);
  await utimes(join(gates, path), before.atime, before.mtime);
}

const leftovers: [string, (gates: string) => Promise<void>, kept?: string[]][] = [
  ["an edit of the same size, its modification time put back", (gates) => hiddenEdit(gates, "a.txt", "B\n")],
  [
    "a copy of a file with its times kept in its place",
    async (gates) => {
      await cp(join(gates, "src", "b.txt"), join(gates, "copy"), { preserveTimestamps: true });
      await writeFile(join(gates, "copy"), "x\n");
      const original = await stat(join(gates, "src", "b.txt"));
      await utimes(join(gates, "copy"), original.atime, original.mtime);
      await rename(join(gates, "copy"), join(gates, "src", "b.txt"));
    },
  ],
  [
    "a mode changed and changed back",
    async (gates) => {
      await chmod(join(gates, "run.sh"), 0o755);
      await chmod(join(gates, "run.sh"), 0o644);
    },
  ],
  [
    "a hard link made outside and removed",
    async (gates) => {
      const outside = join(await newFolder("outside"), "held");
      await link(join(gates, "a.txt"), outside);
      await unlink(outside);
    },
  ],
  [
    "a rename there and back",
    async (gates) => {
      await rename(join(gates, "src", "deep", "c.txt"), join(gates, "moved"));
      await rename(join(gates, "moved"), join(gates, "src", "deep", "c.txt"));
    },
  ],
  ["a deletion", (gates) => rm(join(gates, "src", "b.txt"))],
  ["an untracked file", (gates) => writeFiles(gates, { "src/deep/planted.txt": "x\n" })],
  [
    "an ignored file",
    (gates) => writeFiles(gates, { "out.log": "x\n", "ignored/keep": "k\n" }),
    ["ignored/keep", "out.log"],
  ],
  ["an empty folder", (gates) => mkdir(join(gates, "src", "empty"))],
  [
    "a .gitignore hiding a planted file",
    (gates) => writeFiles(gates, { "src/.gitignore": "*\n", "src/hidden.txt": "x\n" }),
  ],
  ["a nested repository", (gates) => writeFiles(gates, { "src/.git/HEAD": "ref: refs/heads/main\n" })],
  [
    "a tracked folder replaced by a symlink to a copy holding the same names",
    async (gates) => {
      const outside = join(await newFolder("outside"), "src");
      await cp(join(gates, "src"), outside, { recursive: true, preserveTimestamps: true });
      await writeFile(join(outside, "b.txt"), "x\n");
      await rm(join(gates, "src"), { recursive: true });
      await symlink(outside, join(gates, "src"));
    },
  ],
  [
    "a tracked file replaced by a symlink",
    async (gates) => {
      const outside = join(await newFolder("outside"), "a.txt");
      await writeFile(outside, "B\n");
      await rm(join(gates, "a.txt"));
      await symlink(outside, join(gates, "a.txt"));
    },
  ],
  [
    "a tracked symlink repointed",
    async (gates) => {
      await rm(join(gates, "link"));
      await symlink("run.sh", join(gates, "link"));
    },
  ],
];

describe("checkOut of the commit the gates' checkout holds, after a gate ran", () => {
  it("runs no git when the gate left nothing (its .git rebuilt all the same), and read-tree alone for the next commit", async () => {
    const { root, first, second, repository, gates } = await gatesAtCommit();
    await writeFile(join(gates, ".git", "HEAD"), "ref: refs/heads/elsewhere\n");
    const ran = await gitRunBy(() => checkOut(repository, gates, "gates", second, { detached: true }));
    assert.deepEqual(ran, []);
    assert.equal(await readFile(join(gates, ".git", "HEAD"), "utf8"), `${second}\n`);
    await assertExactly(root, gates, second);
    const next = await gitRunBy(() => checkOut(repository, gates, "gates", first, { detached: true }));
    assert.deepEqual(next, ["read-tree"]);
    await assertExactly(root, gates, first);
  });

  for (const [what, leave, kept] of leftovers) {
    it(`checks out in full after ${what}: exactly the commit's files`, async () => {
      const { root, second, repository, gates } = await gatesAtCommit();
      await leave(gates);
      const ran = await gitRunBy(() => checkOut(repository, gates, "gates", second, { detached: true }));
      assert.ok(ran.includes("clean") && ran.includes("read-tree"), ran.join(" "));
      await assertExactly(root, gates, second, kept);
    });
  }

  it("checks out in full while an ignored folder the clean keeps is at the top (an edit beside it written back), with no git once it is gone", async () => {
    const { root, second, repository, gates } = await gatesAtCommit();
    await writeFiles(gates, { "ignored/package/index.js": "x\n" });
    const first = await gitRunBy(() => checkOut(repository, gates, "gates", second, { detached: true }));
    assert.ok(first.includes("clean") && first.includes("read-tree"), first.join(" "));
    await assertExactly(root, gates, second, ["ignored/package/index.js"]);
    await hiddenEdit(gates, "a.txt", "B\n");
    const again = await gitRunBy(() => checkOut(repository, gates, "gates", second, { detached: true }));
    assert.ok(again.includes("clean") && again.includes("read-tree"), again.join(" "));
    await assertExactly(root, gates, second, ["ignored/package/index.js"]);
    await rm(join(gates, "ignored"), { recursive: true });
    const gone = await gitRunBy(() => checkOut(repository, gates, "gates", second, { detached: true }));
    assert.deepEqual(gone, []);
    await assertExactly(root, gates, second);
  });

  it("checks out in full when another process rewrote the index, even to the same files", async () => {
    const { root, second, repository, gates } = await gatesAtCommit();
    const env = {
      GIT_DIR: repository.directory,
      GIT_WORK_TREE: gates,
      GIT_INDEX_FILE: join(repository.directory, "gates.index"),
      GIT_OBJECT_DIRECTORY: repository.objectDirectory,
    };
    await hiddenEdit(gates, "a.txt", "B\n");
    await git(["update-index", "--refresh"], gates, { env }).catch(() => "");
    const ran = await gitRunBy(() => checkOut(repository, gates, "gates", second, { detached: true }));
    assert.ok(ran.includes("read-tree"), ran.join(" "));
    await assertExactly(root, gates, second);
  });

  it("checks out in full when the mark is not later than a change git recorded (the same clock tick)", async () => {
    const { root, second, repository, gates, index } = await gatesAtCommit();
    const written = await stat(join(gates, "a.txt"), { bigint: true });
    // As if git wrote a.txt in the tick the mark was taken in: a gate's edit in that tick would not show.
    recordIndex(index, `commit:${second}`);
    markIndexClock(index, written.ctimeNs);
    const ran = await gitRunBy(() => checkOut(repository, gates, "gates", second, { detached: true }));
    assert.ok(ran.includes("clean") && ran.includes("read-tree"), ran.join(" "));
    await assertExactly(root, gates, second);
  });
});
