/**
 * A checkout's `.git` that only differs from the rebuilt one in its files' contents is refreshed in
 * place; anything else a maker or a gate could do to it (a hook added, a file made a symlink, a hard
 * link to a file outside, a mode changed, a file made a folder, the whole `.git` a symlink) gets the full
 * rebuild, and either way it ends exactly as a rebuild leaves it, nothing outside written through it.
 */
import assert from "node:assert/strict";
import { chmod, link, lstat, mkdir, open, readdir, readFile, rm, symlink, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { describe, it } from "node:test";
import { rewriteInPlace } from "../src/git/checkout-git-refresh.ts";
import { git } from "../src/git/git.ts";
import { checkOut, openLoopRepository } from "../src/git/loop-repository.ts";
import { commitEverything, newFolder, newRepository, writeFiles } from "./git-fixtures.ts";

/** Every entry of `folder`: path, type, mode, link count and (for files but the index) bytes, sorted. */
async function describeTree(folder: string, relative = ""): Promise<string[]> {
  const lines: string[] = [];
  for (const name of (await readdir(join(folder, relative))).sort()) {
    const path = relative === "" ? name : `${relative}/${name}`;
    const stats = await lstat(join(folder, path));
    const type = stats.isDirectory() ? "folder" : stats.isFile() ? "file" : "other";
    // The index's stat data are the checkout's own: compared apart, with the checkout's private index.
    const content =
      stats.isFile() && path !== "index" ? (await readFile(join(folder, path))).toString("base64") : "";
    lines.push(`${path} ${type} ${(stats.mode & 0o7777).toString(8)} ${stats.nlink} ${content}`);
    if (stats.isDirectory()) lines.push(...(await describeTree(folder, path)));
  }
  return lines;
}

async function twoCommits() {
  const root = await newRepository({ "a.txt": "a\n", "dir/b.txt": "b\n" });
  const first = await git(["rev-parse", "HEAD"], root, { trim: true });
  await writeFiles(root, { "a.txt": "a2\n" });
  const second = await commitEverything(root, "second");
  const repository = await openLoopRepository(root, join(await newFolder("private"), "git"));
  return { root, first, second, repository };
}

/** The `.git` a rebuild from nothing gives a new checkout of `sha` on `head`. */
async function rebuiltFromNothing(
  repository: Awaited<ReturnType<typeof openLoopRepository>>,
  sha: string,
  head: { branch: string } | { detached: true },
): Promise<string[]> {
  const checkout = join(await newFolder("reference"), "checkout");
  await checkOut(repository, checkout, "reference", sha, head);
  return describeTree(join(checkout, ".git"));
}

describe("the checkout's .git between two checkouts", () => {
  for (const head of [{ detached: true } as const, { branch: "loop/fix-it" }]) {
    const shape = "branch" in head ? "on a branch" : "detached";
    it(`is refreshed in place when only its files' contents differ (${shape})`, async () => {
      const { first, second, repository } = await twoCommits();
      const checkout = join(await newFolder("gates"), "checkout");
      await checkOut(repository, checkout, "gates", first, head);
      const before = await lstat(join(checkout, ".git"));
      await writeFile(join(checkout, ".git", "config"), "[core]\n\thooksPath = /tmp/evil\n");
      await checkOut(repository, checkout, "gates", second, head);
      assert.equal((await lstat(join(checkout, ".git"))).ino, before.ino, "the same folder, refreshed");
      assert.deepEqual(
        await describeTree(join(checkout, ".git")),
        await rebuiltFromNothing(repository, second, head),
      );
      assert.deepEqual(
        await readFile(join(checkout, ".git", "index")),
        await readFile(join(repository.directory, "gates.index")),
      );
      assert.equal(await git(["rev-parse", "HEAD"], checkout, { trim: true }), second);
      assert.equal(await git(["status", "--porcelain"], checkout), "");
    });
  }

  const tricks: [string, (dotGit: string, outside: string) => Promise<void>][] = [
    [
      "a hook added",
      async (dotGit) => {
        await mkdir(join(dotGit, "hooks"));
        await writeFile(join(dotGit, "hooks", "post-checkout"), "#!/bin/sh\necho hooked\n");
      },
    ],
    [
      "config made a symlink to a file outside",
      async (dotGit, outside) => {
        await writeFile(outside, await readFile(join(dotGit, "config")));
        await rm(join(dotGit, "config"));
        await symlink(outside, join(dotGit, "config"));
      },
    ],
    [
      "HEAD hard-linked to a file outside",
      async (dotGit, outside) => {
        await writeFile(outside, await readFile(join(dotGit, "HEAD")));
        await rm(join(dotGit, "HEAD"));
        await link(outside, join(dotGit, "HEAD"));
      },
    ],
    ["config made unreadable", async (dotGit) => chmod(join(dotGit, "config"), 0o000)],
    [
      "the index made a folder",
      async (dotGit) => {
        await rm(join(dotGit, "index"));
        await mkdir(join(dotGit, "index"));
      },
    ],
    ["refs made writable by everyone", async (dotGit) => chmod(join(dotGit, "refs"), 0o777)],
    [".git made writable by everyone", async (dotGit) => chmod(dotGit, 0o777)],
    ["refs/tags removed", async (dotGit) => rm(join(dotGit, "refs", "tags"), { recursive: true })],
    [
      "an object written",
      async (dotGit) => {
        await mkdir(join(dotGit, "objects", "ab"));
        await writeFile(join(dotGit, "objects", "ab", "cdef"), "x");
      },
    ],
    [
      ".git made a symlink to a folder outside",
      async (dotGit, outside) => {
        await mkdir(outside);
        await rm(dotGit, { recursive: true });
        await symlink(outside, dotGit);
      },
    ],
  ];
  for (const [trick, play] of tricks) {
    it(`is rebuilt in full after ${trick}, and ends as a rebuild leaves it`, async () => {
      const { first, second, repository } = await twoCommits();
      const checkout = join(await newFolder("gates"), "checkout");
      const outside = join(await newFolder("outside"), "target");
      await checkOut(repository, checkout, "gates", first, { detached: true });
      await play(join(checkout, ".git"), outside);
      // What is outside, but the link counts (a hard link in the .git goes with the rebuild).
      const outsideNow = async () =>
        (await describeTree(join(outside, ".."))).map((line) => line.replace(/ \d+ (\S*)$/, " $1"));
      const outsideBefore = await outsideNow();
      await checkOut(repository, checkout, "gates", second, { detached: true });
      assert.ok((await lstat(join(checkout, ".git"))).isDirectory());
      assert.deepEqual(
        await describeTree(join(checkout, ".git")),
        await rebuiltFromNothing(repository, second, { detached: true }),
      );
      assert.deepEqual(await outsideNow(), outsideBefore, "nothing outside written");
      assert.deepEqual(
        await readFile(join(checkout, ".git", "index")),
        await readFile(join(repository.directory, "gates.index")),
      );
      assert.equal(await git(["rev-parse", "HEAD"], checkout, { trim: true }), second);
      assert.equal(await git(["status", "--porcelain"], checkout), "");
    });
  }
});

describe("rewriteInPlace (a stale file of a refreshed .git)", () => {
  it("writes the bytes over the very file looked at, longer or shorter, and nothing else", async () => {
    const folder = await newFolder("in-place");
    const target = join(folder, "HEAD");
    await writeFile(target, "0123456789\n");
    const looked = await lstat(target);
    rewriteInPlace(target, { device: looked.dev, inode: looked.ino }, Buffer.from("abc\n"));
    assert.equal(await readFile(target, "utf8"), "abc\n");
    rewriteInPlace(target, { device: looked.dev, inode: looked.ino }, Buffer.from("a longer line\n"));
    assert.equal(await readFile(target, "utf8"), "a longer line\n");
    assert.equal((await lstat(target)).ino, looked.ino);
  });

  it("refuses a symlink, a hard link or another file swapped in since it was looked at", async () => {
    const folder = await newFolder("in-place");
    const outside = join(await newFolder("outside"), "target");
    const target = join(folder, "HEAD");
    const swaps: [string, () => Promise<void>][] = [
      ["a symlink", () => symlink(outside, target)],
      ["a hard link", () => link(outside, target)],
      ["another file", () => writeFile(target, "another\n")],
    ];
    for (const [what, swap] of swaps) {
      await writeFile(target, "looked at\n");
      const looked = await lstat(target);
      await writeFile(outside, "outside\n");
      // Held open, the file looked at keeps its inode number: the swapped-in one cannot reuse it.
      const held = await open(target, "r");
      try {
        await rm(target);
        await swap();
        assert.throws(
          () => rewriteInPlace(target, { device: looked.dev, inode: looked.ino }, Buffer.from("written\n")),
          what,
        );
      } finally {
        await held.close();
      }
      assert.equal(await readFile(outside, "utf8"), "outside\n", what);
      await rm(target);
    }
  });
});
