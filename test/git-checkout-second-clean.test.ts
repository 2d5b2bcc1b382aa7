/**
 * The gates' checkout of the next commit skips its clean after read-tree only where that clean would
 * remove nothing (loop-repository.ts, `cleanAfterReadTreeIdle`). Every case here checks that claim
 * directly: after `checkOut`, git's own `clean` (the same command, as a dry run) finds nothing left to
 * remove, and the checkout's files are the commit's. Hostile cases: a gate that planted files, renamed,
 * deleted or linked tracked ones, nested a repository in a folder the next commit no longer tracks, left a
 * dropped submodule's folder full, edited or planted .gitignore files, used odd names. Where the
 * second clean is due (the ignore rules change between the commits, or the next commit drops a path),
 * it runs. A checkout the gate left untouched (untouched-checkout.ts) runs read-tree alone.
 * Counted with LOOPWRIGHT_GIT_TRACE (read when git.ts loads: set first, then the modules are imported).
 */
import assert from "node:assert/strict";
import { lstat, mkdir, mkdtemp, readFile, readlink, rm, symlink, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, it } from "node:test";

const traceFolder = await mkdtemp(join(tmpdir(), "loopwright-second-clean-"));
const trace = join(traceFolder, "trace");
process.env.LOOPWRIGHT_GIT_TRACE = trace;
const { git } = await import("../src/git/git.ts");
const { checkOut, openLoopRepository } = await import("../src/git/loop-repository.ts");
const { commitEverything, newFolder, newRepository, setupIdentity, writeFiles } = await import(
  "./git-fixtures.ts"
);

/** The git subcommands `work` ran. */
async function gitRunBy(work: () => Promise<unknown>): Promise<string[]> {
  await writeFile(trace, "");
  await work();
  return (await readFile(trace, "utf8"))
    .split("\n")
    .filter(Boolean)
    .map((line) => line.split(" ")[1]);
}

const baseFiles = {
  "a.txt": "a\n",
  "src/b.txt": "b\n",
  "src/deep/c.txt": "c\n",
  "gone/d.txt": "d\n",
  ".gitignore": "ignored/\n*.log\n",
  "src/.gitignore": "*.tmp\n",
};

/**
 * A repository whose first commit holds `baseFiles` and whose second is `change` applied to it; the
 * gates' checkout of the first, as the last iteration's recheck leaves it.
 */
async function twoCommits(change: (root: string) => Promise<void>) {
  const root = await newRepository(baseFiles);
  const first = await git(["rev-parse", "HEAD"], root, { trim: true });
  await change(root);
  const second = await commitEverything(root, "second");
  const repository = await openLoopRepository(root, join(await newFolder("private"), "git"));
  const gates = join(await newFolder("gates"), "checkout");
  await checkOut(repository, gates, "gates", first, { detached: true });
  await checkOut(repository, gates, "gates", first, { detached: true });
  return { root, first, second, repository, gates };
}

/** What git's clean, run as `checkOut` runs it, would still remove (a dry run): must be nothing. */
async function leftToClean(repository: { directory: string; objectDirectory: string }, gates: string) {
  const env = {
    GIT_CONFIG_NOSYSTEM: "1",
    GIT_CONFIG_GLOBAL: "/dev/null",
    GIT_DIR: repository.directory,
    GIT_WORK_TREE: gates,
    GIT_INDEX_FILE: join(repository.directory, "gates.index"),
    GIT_OBJECT_DIRECTORY: repository.objectDirectory,
  };
  return git(["-c", "core.excludesFile=/dev/null", "clean", "-ffd", "-e", "!.gitignore", "-n"], gates, {
    env,
  });
}

/** The commit's files are in the checkout, byte for byte (a symlink's target as its blob says). */
async function assertCommitFiles(root: string, gates: string, sha: string) {
  const listed = await git(["ls-tree", "-r", "-z", sha], root);
  for (const line of listed.split("\0").filter(Boolean)) {
    const [mode, , id] = line.slice(0, line.indexOf("\t")).split(" ");
    const path = line.slice(line.indexOf("\t") + 1);
    const expected = await git(["cat-file", "blob", id], root);
    const stats = await lstat(join(gates, path));
    if (mode === "120000") assert.equal(await readlink(join(gates, path)), expected, path);
    else assert.equal(stats.isFile() && (await readFile(join(gates, path), "utf8")), expected, path);
  }
}

// Second commits whose .gitignore files are the first's and that track every path it tracked (the clean
// is skipped)...
const sameRules: [string, (root: string) => Promise<void>][] = [
  ["an edit", (root) => writeFile(join(root, "a.txt"), "a2\n")],
  ["a new folder", (root) => writeFiles(root, { "new/f.txt": "f\n", 'new/g\\tname "q".txt': "g\n" })],
  ["a symlink", (root) => symlink("a.txt", join(root, "link"))],
];
// ...and whose .gitignore files differ, or that drop a path (the clean runs).
const otherRules: [string, (root: string) => Promise<void>][] = [
  [
    "a deletion in a folder still tracked",
    (root) =>
      rm(join(root, "src", "deep", "c.txt")).then(() => writeFiles(root, { "src/deep/e.txt": "e\n" })),
  ],
  ["a rename", (root) => git(["mv", "src/b.txt", "src/renamed b.txt"], root).then(() => undefined)],
  ["a folder no longer tracked", (root) => rm(join(root, "gone"), { recursive: true })],
  ["an edited .gitignore", (root) => writeFile(join(root, "src", ".gitignore"), "*.tmp\n*.bak\n")],
  ["a deleted .gitignore", (root) => rm(join(root, "src", ".gitignore"))],
  ["a new .gitignore", (root) => writeFiles(root, { "src/deep/.gitignore": "x\n" })],
];

/**
 * What a gate leaves in the checkout of the first commit before the next checkout. Those that change
 * the rules the first clean reads (a tracked .gitignore edited or behind a link, a planted one) send the
 * second clean in any case.
 */
const rulesChanged = /gitignore|folder replaced by a symlink/;
const gateLeftovers: [string, (gates: string) => Promise<void>][] = [
  ["nothing", async () => {}],
  [
    "planted files, ignored ones and an empty folder",
    async (gates) => {
      await writeFiles(gates, {
        "planted.txt": "x\n",
        "src/deep/planted": "x\n",
        "ignored/keep": "k\n",
        "out.log": "k\n",
        "src/x.tmp": "k\n",
      });
      await mkdir(join(gates, "empty", "deeper"), { recursive: true });
    },
  ],
  [
    "a tracked file renamed and one deleted",
    async (gates) => {
      await writeFile(join(gates, "a renamed.txt"), await readFile(join(gates, "a.txt")));
      await rm(join(gates, "a.txt"));
      await rm(join(gates, "src", "deep", "c.txt"));
    },
  ],
  [
    "a tracked folder replaced by a symlink",
    async (gates) => {
      const outside = await newFolder("outside");
      await writeFiles(outside, { "b.txt": "outside\n", "keep.txt": "outside\n" });
      await rm(join(gates, "src"), { recursive: true });
      await symlink(outside, join(gates, "src"));
    },
  ],
  [
    "a repository nested in every tracked folder",
    async (gates) => {
      for (const folder of ["gone", "src", "src/deep"]) {
        await git(["init", "--quiet", join(gates, folder, "nested")], gates);
        await writeFile(join(gates, folder, "nested", "x.txt"), "x\n");
      }
      await git(
        [
          "init",
          "--quiet",
          "--separate-git-dir",
          join(await newFolder("sep"), "g"),
          join(gates, "gone", "sub"),
        ],
        gates,
      );
    },
  ],
  [
    "a .git folder in a tracked folder",
    (gates) => writeFiles(gates, { "gone/.git/HEAD": "ref: refs/heads/main\n", "gone/.git/config": "" }),
  ],
  [
    "an untracked .gitignore hiding a file",
    (gates) =>
      writeFiles(gates, {
        "src/deep/.gitignore": "*\n",
        "src/deep/hidden.txt": "x\n",
        "gone/.gitignore": "*\n",
        "gone/hidden": "x\n",
      }),
  ],
  [
    "an edited tracked .gitignore",
    (gates) => writeFiles(gates, { "src/.gitignore": "*.tmp\nhidden.txt\n", "src/hidden.txt": "x\n" }),
  ],
  [
    "files with odd names",
    (gates) =>
      writeFiles(gates, { "gone/we\\ird\tname\n.txt": "x\n", "src/ü ñ.log": "kept\n", "-rf": "x\n" }),
  ],
];

describe("checkOut of the next commit: the clean after read-tree is skipped only where it is idle", () => {
  for (const [commitWhat, change] of [...sameRules, ...otherRules]) {
    for (const [gateWhat, leave] of gateLeftovers) {
      it(`${commitWhat}, after a gate left ${gateWhat}: nothing left to clean, the commit's files`, async () => {
        const { root, second, repository, gates } = await twoCommits(change);
        await leave(gates);
        const ran = await gitRunBy(() => checkOut(repository, gates, "gates", second, { detached: true }));
        assert.equal(await leftToClean(repository, gates), "");
        await assertCommitFiles(root, gates, second);
        const status = await git(["status", "--porcelain", "--untracked-files=all"], gates);
        assert.equal(status, "");
        // No clean where the gate left the checkout provably untouched (untouched-checkout.ts); one where
        // the commits keep the rules and folders and the gate left the rules alone.
        const idle = sameRules.some(([what]) => what === commitWhat) && !rulesChanged.test(gateWhat);
        const cleans = ran.filter((name) => name === "clean").length;
        if (gateWhat === "nothing") assert.deepEqual(ran, ["read-tree"]);
        else if (idle) assert.equal(cleans, 1, ran.join(" "));
        else assert.ok(cleans >= 2, ran.join(" "));
      });
    }
  }

  it("a dropped submodule's folder a gate filled is cleaned after read-tree", async () => {
    const root = await newRepository(baseFiles);
    const inner = await newRepository({ "m.txt": "m\n" });
    const innerSha = await git(["rev-parse", "HEAD"], inner, { trim: true });
    await git(["update-index", "--add", "--cacheinfo", `160000,${innerSha},module`], root);
    await git([...setupIdentity, "commit", "--quiet", "-m", "with a submodule"], root);
    const first = await git(["rev-parse", "HEAD"], root, { trim: true });
    await git(["rm", "--cached", "--quiet", "module"], root);
    await writeFile(join(root, "a.txt"), "a2\n");
    const second = await commitEverything(root, "without it");
    const repository = await openLoopRepository(root, join(await newFolder("private"), "git"));
    const gates = join(await newFolder("gates"), "checkout");
    await checkOut(repository, gates, "gates", first, { detached: true });
    await writeFiles(gates, { "module/planted.txt": "x\n" });
    const ran = await gitRunBy(() => checkOut(repository, gates, "gates", second, { detached: true }));
    assert.equal(ran.filter((name) => name === "clean").length, 2, ran.join(" "));
    await assert.rejects(lstat(join(gates, "module")), { code: "ENOENT" });
    assert.equal(await leftToClean(repository, gates), "");
  });
});
