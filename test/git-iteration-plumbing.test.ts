/**
 * The per-iteration git shortcuts keep their contracts: git is spawned by its absolute path (never
 * through a relative PATH entry), a checkout's fresh `.git` is on the right branch or commit without
 * git writing its refs, a maker checkout whose files already match is only cleaned, the pending
 * listing is one `ls-files` that still sees edits, deletions, mode changes and new files, and several
 * diffs printed in one `diff-tree --stdin` run are each exactly what `diffText` prints alone.
 */
import assert from "node:assert/strict";
import {
  chmod,
  lstat,
  mkdir,
  readdir,
  readFile,
  rename,
  rm,
  stat,
  symlink,
  writeFile,
} from "node:fs/promises";
import { delimiter, dirname, join } from "node:path";
import { describe, it } from "node:test";
import { diffText, diffTexts } from "../src/git/diffs.ts";
import { GitError, git, gitExecutable, gitSequence } from "../src/git/git.ts";
import {
  branchTip,
  commitOntoBranch,
  ensureBranch,
  knownBranchTip,
  moveBranch,
} from "../src/git/loop-branch.ts";
import {
  changedSince,
  checkOut,
  checkOutTreeOfCommit,
  knownIndexCommit,
  openLoopRepository,
  snapshotTree,
} from "../src/git/loop-repository.ts";
import { filesAt } from "../src/git/tree-with-file.ts";
import { commitEverything, newFolder, newRepository, writeFiles } from "./git-fixtures.ts";

const lines = (count: number, prefix: string) =>
  Array.from({ length: count }, (_, index) => `${prefix} ${index}\n`).join("");

describe("gitExecutable", () => {
  it("names git by its absolute path, and skips relative PATH folders where a planted git could sit", async () => {
    const real = gitExecutable(process.env.PATH);
    assert.match(real, /^\/.*\/git$/);
    const planted = await newFolder("planted");
    await writeFile(join(planted, "git"), "#!/bin/sh\necho planted\n");
    await chmod(join(planted, "git"), 0o755);
    // `.` first, as a careless PATH has it: resolved against the checkout a command runs in, it would run
    // the checkout's own `git`.
    assert.equal(gitExecutable(`.${delimiter}${process.env.PATH}`), real);
    assert.equal(gitExecutable(`${planted}${delimiter}${process.env.PATH}`), join(planted, "git"));
    assert.equal(gitExecutable("relative/only"), "git");
  });
});

describe("checkOut", () => {
  it("gives the checkout a .git on the branch (slashes in its name) or detached at the SHA, usable by git", async () => {
    const root = await newRepository({ "a.txt": "a\n", "dir/b.txt": "b\n" });
    const sha = await git(["rev-parse", "HEAD"], root, { trim: true });
    const repository = await openLoopRepository(root, join(await newFolder("private"), "git"));
    const maker = join(await newFolder("maker"), "checkout");
    await checkOut(repository, maker, "maker", sha, { branch: "loop/fix-it" });
    assert.equal(await readFile(join(maker, ".git", "HEAD"), "utf8"), "ref: refs/heads/loop/fix-it\n");
    assert.equal(await git(["rev-parse", "HEAD"], maker, { trim: true }), sha);
    assert.equal(await git(["symbolic-ref", "--short", "HEAD"], maker, { trim: true }), "loop/fix-it");
    assert.equal(await git(["status", "--porcelain"], maker), "");
    const gates = join(await newFolder("gates"), "checkout");
    await checkOut(repository, gates, "gates", sha, { detached: true });
    assert.equal(await readFile(join(gates, ".git", "HEAD"), "utf8"), `${sha}\n`);
    assert.equal(await git(["status", "--porcelain"], gates), "");
    // A rebuild replaces whatever the last user left, its branch included.
    await writeFile(join(maker, ".git", "HEAD"), "ref: refs/heads/elsewhere\n");
    await checkOut(repository, maker, "maker", sha, { branch: "loop/fix-it" });
    assert.equal(await git(["symbolic-ref", "--short", "HEAD"], maker, { trim: true }), "loop/fix-it");
  });

  it("with filesMatch, writes no file but still removes empty folders, and the next checkout works", async () => {
    const root = await newRepository({ "a.txt": "a\n", ".gitignore": "ignored/\n" });
    const first = await git(["rev-parse", "HEAD"], root, { trim: true });
    await writeFiles(root, { "a.txt": "a2\n" });
    const second = await commitEverything(root, "second");
    const repository = await openLoopRepository(root, join(await newFolder("private"), "git"));
    const maker = join(await newFolder("maker"), "checkout");
    await checkOut(repository, maker, "maker", second, { branch: "loop/x" });
    await mkdir(join(maker, "empty", "deeper"), { recursive: true });
    await writeFiles(maker, { "ignored/cache.bin": "kept\n" });
    const before = (await stat(join(maker, "a.txt"))).mtimeMs;
    const tree = await snapshotTree(repository, maker, "maker");
    assert.equal(tree, await git(["rev-parse", `${second}^{tree}`], root, { trim: true }));
    await checkOut(repository, maker, "maker", second, { branch: "loop/x" }, { filesMatch: true });
    assert.equal((await stat(join(maker, "a.txt"))).mtimeMs, before);
    await assert.rejects(stat(join(maker, "empty")), { code: "ENOENT" });
    assert.equal(await readFile(join(maker, "ignored", "cache.bin"), "utf8"), "kept\n");
    assert.equal(await git(["status", "--porcelain"], maker), "");
    // Back to the first commit: the files are rewritten from the index the snapshot left.
    await checkOut(repository, maker, "maker", first, { branch: "loop/x" });
    assert.equal(await readFile(join(maker, "a.txt"), "utf8"), "a\n");
  });
});

describe("checkOutTreeOfCommit", () => {
  it("writes the tree's files before the commit is made and ends as checkOut of the commit; a failed commit records nothing", async () => {
    const root = await newRepository({ "a.txt": "a\n", "dir/b.txt": "b\n" });
    const first = await git(["rev-parse", "HEAD"], root, { trim: true });
    await writeFiles(root, { "a.txt": "a2\n", "c.txt": "c\n" });
    await git(["rm", "-q", "dir/b.txt"], root);
    const second = await commitEverything(root, "second");
    const tree = await git(["rev-parse", `${second}^{tree}`], root, { trim: true });
    const repository = await openLoopRepository(root, join(await newFolder("private"), "git"));
    const gates = join(await newFolder("gates"), "checkout");
    await checkOut(repository, gates, "gates", first, { detached: true });
    await writeFiles(gates, { "planted.txt": "from a gate\n", "a.txt": "changed by a gate\n" });
    let made: (sha: string) => void = () => {};
    const commit = new Promise<string>((resolve) => {
      made = resolve;
    });
    const checking = checkOutTreeOfCommit(repository, gates, "gates", tree, commit, { detached: true });
    // The files are the tree's while the commit is still being made.
    // (git writes a file anew: between its removal and its creation, there is none.)
    const aText = () => readFile(join(gates, "a.txt"), "utf8").catch(() => "");
    for (let tries = 0; tries < 500 && (await aText()) !== "a2\n"; tries++)
      await new Promise((resolve) => setTimeout(resolve, 10));
    assert.equal(await readFile(join(gates, "a.txt"), "utf8"), "a2\n");
    made(second);
    await checking;
    assert.deepEqual((await readdir(gates)).sort(), [".git", "a.txt", "c.txt"]);
    assert.equal(await readFile(join(gates, ".git", "HEAD"), "utf8"), `${second}\n`);
    assert.equal(await git(["status", "--porcelain"], gates), "");
    // The index is known to hold the commit: a checkOut of it finds the files where they should be.
    assert.equal(knownIndexCommit(repository, "gates"), second);
    // A commit that fails leaves the files written and nothing recorded: the next checkOut runs in full.
    await writeFiles(gates, { "planted.txt": "again\n" });
    const failed = Promise.reject(new Error("no commit"));
    failed.catch(() => {}); // As the commit step's own wait for it does.
    await assert.rejects(
      checkOutTreeOfCommit(repository, gates, "gates", tree, failed, { detached: true }),
      /no commit/,
    );
    assert.equal(knownIndexCommit(repository, "gates"), undefined);
    await checkOut(repository, gates, "gates", second, { detached: true });
    assert.deepEqual((await readdir(gates)).sort(), [".git", "a.txt", "c.txt"]);
  });
});

describe("changedSince", () => {
  it("lists edits, deletions, mode changes and new files in one listing, ignored files left out", async () => {
    const root = await newRepository({
      "edit.txt": "1\n",
      "gone.txt": "bye\n",
      "run.sh": "echo\n",
      "same.txt": "same\n",
      ".gitignore": "ignored.txt\n",
    });
    const sha = await git(["rev-parse", "HEAD"], root, { trim: true });
    const repository = await openLoopRepository(root, join(await newFolder("private"), "git"));
    const maker = join(await newFolder("maker"), "checkout");
    await checkOut(repository, maker, "maker", sha, { branch: "loop/y" });
    await writeFiles(maker, { "edit.txt": "2\n", "new/file.txt": "new\n", "ignored.txt": "x\n" });
    await rm(join(maker, "gone.txt"));
    await chmod(join(maker, "run.sh"), 0o755);
    // Rewritten with the same content: a changed stat is not a change.
    await writeFile(join(maker, "same.txt"), "same\n");
    assert.deepEqual(await changedSince(repository, maker, "maker", sha), [
      "edit.txt",
      "gone.txt",
      "new/file.txt",
      "run.sh",
    ]);
  });
});

describe("diffTexts", () => {
  it("prints several diffs in one run, each exactly as diffText prints it alone, empty ones included", async () => {
    const root = await newRepository({ "a.txt": lines(30, "a"), "b.txt": lines(10, "b") });
    const base = await git(["rev-parse", "HEAD"], root, { trim: true });
    await writeFiles(root, { "a.txt": lines(31, "a"), "c.txt": `${base} ${base}\n` });
    await git(["mv", "b.txt", "moved.txt"], root);
    const start = await commitEverything(root, "one");
    await writeFiles(root, { "a.txt": lines(29, "a") });
    const tip = await commitEverything(root, "two");
    const pairs = [
      [start, tip],
      [base, tip],
      [tip, tip],
      [base, start],
    ] as const;
    const texts = await diffTexts(root, pairs);
    for (const [index, [from, to]] of pairs.entries()) {
      const alone = await git(
        [
          "-c",
          "core.quotePath=false",
          "diff",
          "--no-color",
          "--no-ext-diff",
          "--no-textconv",
          "--src-prefix=a/",
          "--dst-prefix=b/",
          "--find-renames",
          "--diff-algorithm=histogram",
          "--unified=3",
          from,
          to,
          "--",
        ],
        root,
      );
      assert.equal(texts[index], alone, `pair ${index}`);
      assert.equal(await diffText(root, from, to), alone, `diffText of pair ${index}`);
    }
    assert.equal(texts[2], "");
    assert.match(texts[1], /^rename to moved\.txt$/m);
  });
});

describe("knownBranchTip", () => {
  it("is the tip this process last read or set, forgotten while a move is under way or after a failed one", async () => {
    const root = await newRepository({ "a.txt": "a\n" });
    const first = await git(["rev-parse", "HEAD"], root, { trim: true });
    assert.equal(knownBranchTip(root, "loop/t"), undefined);
    assert.equal(await ensureBranch(root, "loop/t", first), first);
    assert.equal(knownBranchTip(root, "loop/t"), first);
    await writeFiles(root, { "a.txt": "b\n" });
    const second = await commitEverything(root, "second");
    await moveBranch(root, "loop/t", second, first);
    assert.equal(knownBranchTip(root, "loop/t"), second);
    // Another writer moves it: loopwright's next move, naming the tip it knows, fails and forgets it.
    await git(["update-ref", "refs/heads/loop/t", first], root);
    await assert.rejects(moveBranch(root, "loop/t", first, second));
    assert.equal(knownBranchTip(root, "loop/t"), undefined);
    assert.equal(await branchTip(root, "loop/t"), first);
    assert.equal(knownBranchTip(root, "loop/t"), first);
  });
});

describe("filesAt", () => {
  it("reads several files of several commits in one run: raw bytes as text, missing names and folders undefined", async () => {
    const root = await newRepository({ "package.json": '{"name":"é"}\n', "dir/run.sh": "echo ✓\n" });
    const first = await git(["rev-parse", "HEAD"], root, { trim: true });
    await writeFiles(root, { "package.json": '{"name":"ü","scripts":{}}\n' });
    const second = await commitEverything(root, "second");
    assert.deepEqual(
      await filesAt(root, [
        `${first}:package.json`,
        `${second}:package.json`,
        `${second}:missing.txt`,
        `${second}:dir`,
        `${first}:dir/run.sh`,
        `${second}:line\nbreak`,
      ]),
      ['{"name":"é"}\n', '{"name":"ü","scripts":{}}\n', undefined, undefined, "echo ✓\n", undefined],
    );
    assert.deepEqual(await filesAt(root, []), []);
  });
});

describe("branchTip", () => {
  it("reads a loose or a packed branch from its file, with no git run, and asks git for anything else", async () => {
    const root = await newRepository({ "a.txt": "a\n" });
    const first = await git(["rev-parse", "HEAD"], root, { trim: true });
    await writeFiles(root, { "a.txt": "a2\n" });
    const second = await commitEverything(root, "second");
    await git(["update-ref", "refs/heads/loop/loose", second], root);
    await git(["update-ref", "refs/heads/loop/packed", first], root);
    await git(["pack-refs", "--all"], root);
    await git(["update-ref", "refs/heads/loop/loose", second], root);
    await git(["symbolic-ref", "refs/heads/loop/alias", "refs/heads/loop/loose"], root);
    const askGit = async (branch: string) => {
      const result = await git(["rev-parse", "--verify", "--quiet", `refs/heads/${branch}^{commit}`], root, {
        trim: true,
      }).catch(() => undefined);
      return result === "" ? undefined : result;
    };
    // Without a git to run, only the answers read from files come back.
    const path = process.env.PATH;
    process.env.PATH = await newFolder("no-git");
    try {
      assert.equal(await branchTip(root, "loop/loose"), second);
      assert.equal(await branchTip(root, "loop/packed"), first);
      await assert.rejects(branchTip(root, "loop/alias"), /git/);
      await assert.rejects(branchTip(root, "loop/missing"), /git/);
    } finally {
      process.env.PATH = path;
    }
    for (const branch of ["loop/loose", "loop/packed", "loop/alias", "loop/missing", "loop"])
      assert.equal(await branchTip(root, branch), await askGit(branch), branch);
  });
});

describe("gitSequence", () => {
  it("runs the commands in order in one shell that reads none of their arguments, and returns the last one's output", async () => {
    const root = await newRepository({ "a.txt": "a\n" });
    const tricky = [
      "$(touch pwned)",
      "`touch pwned`",
      "; touch pwned",
      'it\'s "quoted"',
      "two\nlines",
      // biome-ignore lint/suspicious/noTemplateCurlyInString: a shell expansion that must stay text
      "${HOME}",
      "*",
    ];
    const output = await gitSequence(
      [
        ["config", "loopwright.first", tricky.join(" ")],
        ...tricky.map((value, index) => ["config", `loopwright.value${index}`, value]),
        ["config", "--get-regexp", "^loopwright\\."],
      ],
      root,
    );
    assert.equal(
      output,
      [
        `loopwright.first ${tricky.join(" ")}`,
        ...tricky.map((value, index) => `loopwright.value${index} ${value}`),
      ]
        .join("\n")
        .concat("\n"),
    );
    await assert.rejects(stat(join(root, "pwned")), { code: "ENOENT" });
  });

  it("stops at the first command that fails and throws git's own message", async () => {
    const root = await newRepository({ "a.txt": "a\n" });
    await assert.rejects(
      gitSequence(
        [
          ["rev-parse", "--verify", "no-such-ref^{commit}"],
          ["config", "loopwright.after", "ran"],
        ],
        root,
      ),
      (error: unknown) => error instanceof GitError && /fatal: Needed a single revision/.test(error.message),
    );
    assert.equal(await git(["config", "--get", "loopwright.after"], root).catch(() => "unset"), "unset");
  });
});

describe("gitSequence onlyIf and snapshotTree cleanIfTree", () => {
  it("runs what follows the guarded command only when it printed the expected output, and returns that output", async () => {
    const root = await newRepository({ "a.txt": "a\n" });
    const head = await git(["rev-parse", "HEAD"], root, { trim: true });
    const run = (expected: string) =>
      gitSequence(
        [
          ["rev-parse", "HEAD"],
          ["config", "loopwright.ran", expected],
        ],
        root,
        { trim: true, resultOf: 0, onlyIf: expected },
      );
    assert.equal(await run("0".repeat(40)), head);
    assert.equal(await git(["config", "--get", "loopwright.ran"], root).catch(() => "unset"), "unset");
    assert.equal(await run(head), head);
    assert.equal(await git(["config", "--get", "loopwright.ran"], root, { trim: true }), head);
  });

  it("cleans the checkout with the snapshot only when the tree is the one named", async () => {
    const root = await newRepository({ "a.txt": "a\n" });
    const sha = await git(["rev-parse", "HEAD"], root, { trim: true });
    const tree = await git(["rev-parse", `${sha}^{tree}`], root, { trim: true });
    const repository = await openLoopRepository(root, join(await newFolder("private"), "git"));
    const maker = join(await newFolder("maker"), "checkout");
    await checkOut(repository, maker, "maker", sha, { branch: "loop/x" });
    await mkdir(join(maker, "empty"), { recursive: true });
    assert.equal(await snapshotTree(repository, maker, "maker", { cleanIfTree: "f".repeat(40) }), tree);
    assert.ok((await stat(join(maker, "empty"))).isDirectory());
    assert.equal(await snapshotTree(repository, maker, "maker", { cleanIfTree: tree }), tree);
    await assert.rejects(stat(join(maker, "empty")), { code: "ENOENT" });
    // A leftover file changes the tree: nothing is cleaned, the file is in the snapshot.
    await writeFiles(maker, { "left.txt": "left\n" });
    await mkdir(join(maker, "empty"), { recursive: true });
    const left = await snapshotTree(repository, maker, "maker", { cleanIfTree: tree });
    assert.notEqual(left, tree);
    assert.ok((await stat(join(maker, "empty"))).isDirectory());
    assert.equal(await git(["cat-file", "-p", `${left}:left.txt`], root), "left\n");
  });
});

describe("commitOntoBranch", () => {
  it("commits the tree with its message and moves the branch from the parent, or throws and moves nothing", async () => {
    const root = await newRepository({ "a.txt": "a\n" });
    const parent = await git(["rev-parse", "HEAD"], root, { trim: true });
    await ensureBranch(root, "loop/c", parent);
    await writeFiles(root, { "a.txt": "a2\n" });
    const other = await commitEverything(root, "other");
    const tree = await git(["rev-parse", `${other}^{tree}`], root, { trim: true });
    const request = { message: "loopwright: c iteration 1", trailers: { "Loopwright-Iteration": "1" } };
    const sha = await commitOntoBranch(root, "loop/c", tree, parent, request);
    assert.equal(await git(["rev-parse", "refs/heads/loop/c"], root, { trim: true }), sha);
    assert.equal(knownBranchTip(root, "loop/c"), sha);
    assert.equal(
      await git(["rev-parse", `${sha}^{tree}`, `${sha}^`], root, { trim: true }),
      `${tree}\n${parent}`,
    );
    assert.equal(
      await git(["log", "-1", "--format=%B", sha], root),
      "loopwright: c iteration 1\n\nLoopwright-Iteration: 1\n\n",
    );
    assert.match(
      await git(["reflog", "-1", "--format=%gs", "refs/heads/loop/c"], root),
      /move the loop branch/,
    );
    // The branch is no longer at `parent`: nothing moves, and the answer says why.
    await assert.rejects(commitOntoBranch(root, "loop/c", tree, parent, request), GitError);
    assert.equal(await git(["rev-parse", "refs/heads/loop/c"], root, { trim: true }), sha);
    assert.equal(knownBranchTip(root, "loop/c"), undefined);
  });
});

describe("checkOut's old .git", () => {
  it("is moved out of the checkout at once and deleted in the background, a symlink never followed", async () => {
    const root = await newRepository({ "a.txt": "a\n" });
    const sha = await git(["rev-parse", "HEAD"], root, { trim: true });
    const directory = join(await newFolder("private"), "git");
    const repository = await openLoopRepository(root, directory);
    const maker = join(await newFolder("maker"), "checkout");
    await checkOut(repository, maker, "maker", sha, { branch: "loop/t" });
    // A maker replaces its .git with a symlink to a folder of its own.
    const target = await newFolder("target");
    await writeFiles(target, { "keep.txt": "kept\n" });
    await rm(join(maker, ".git"), { recursive: true, force: true });
    await symlink(target, join(maker, ".git"));
    await checkOut(repository, maker, "maker", sha, { branch: "loop/t" });
    assert.equal(await git(["rev-parse", "HEAD"], maker, { trim: true }), sha);
    assert.equal(await readFile(join(target, "keep.txt"), "utf8"), "kept\n");
    // Nothing of the old .git stays for long.
    for (let attempt = 0; attempt < 100; attempt++) {
      if ((await readdir(join(directory, "trash"))).length === 0) break;
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    assert.deepEqual(await readdir(join(directory, "trash")), []);
    assert.equal(await readFile(join(target, "keep.txt"), "utf8"), "kept\n");
  });
});

describe("checkOut over a tracked folder replaced by a symlink", () => {
  // A gate's code runs in the gates' checkout: it can move a tracked folder away (the files keep their
  // inodes and stat data) and leave a symlink to it. The next checkout must hold the files itself.
  for (const [name, moved] of [
    ["a top folder moved inside the checkout", "tests-moved"],
    ["a nested folder moved inside the checkout", "src/lib-moved"],
    ["a top folder moved outside the checkout", "outside"],
  ] as const) {
    it(`rewrites ${name}: real folders and files, the moved copy untouched`, async () => {
      const root = await newRepository({
        "tests/a.test.js": "a\n",
        "tests/deep/b.test.js": "b\n",
        "src/lib/c.js": "c\n",
        "top.txt": "t\n",
      });
      const sha = await git(["rev-parse", "HEAD"], root, { trim: true });
      const repository = await openLoopRepository(root, join(await newFolder("private"), "git"));
      const gates = join(await newFolder("gates"), "checkout");
      await checkOut(repository, gates, "gates", sha, { detached: true });
      const folder = moved.startsWith("src/") ? "src/lib" : "tests";
      const target = moved === "outside" ? join(await newFolder("elsewhere"), "tests") : join(gates, moved);
      await rename(join(gates, folder), target);
      await symlink(
        moved === "outside" ? target : target.slice(dirname(join(gates, folder)).length + 1),
        join(gates, folder),
      );
      await checkOut(repository, gates, "gates", sha, { detached: true });
      assert.ok((await lstat(join(gates, folder))).isDirectory(), `${folder} is a real folder again`);
      for (const file of ["tests/a.test.js", "tests/deep/b.test.js", "src/lib/c.js", "top.txt"])
        assert.ok((await lstat(join(gates, file))).isFile(), `${file} is there`);
      assert.equal(await readFile(join(gates, "tests/deep/b.test.js"), "utf8"), "b\n");
      assert.equal(await git(["status", "--porcelain", "--ignored"], gates), "");
      if (moved === "outside") assert.deepEqual((await readdir(target)).sort(), ["a.test.js", "deep"]);
    });
  }
});

describe("checkOut over a tracked folder replaced by an ignored symlink", () => {
  // The committed .gitignore ignores the folder's name (its files stay tracked): clean keeps the symlink.
  it("keeps every tracked file through the recheck and the next commit's checkout", async () => {
    const root = await newRepository({
      "tests/a.test.js": "a\n",
      "tests/b.test.js": "b\n",
      "top.txt": "t\n",
    });
    await writeFiles(root, { ".gitignore": "tests\n" });
    const first = await commitEverything(root, "ignore the folder's name");
    await writeFiles(root, { "tests/a.test.js": "a2\n" });
    const second = await commitEverything(root, "change one test");
    const repository = await openLoopRepository(root, join(await newFolder("private"), "git"));
    const gates = join(await newFolder("gates"), "checkout");
    await checkOut(repository, gates, "gates", first, { detached: true });
    const moved = join(await newFolder("elsewhere"), "tests");
    await rename(join(gates, "tests"), moved);
    await symlink(moved, join(gates, "tests"));
    await checkOut(repository, gates, "gates", first, { detached: true });
    assert.deepEqual((await readdir(join(gates, "tests"))).sort(), ["a.test.js", "b.test.js"]);
    await checkOut(repository, gates, "gates", second, { detached: true });
    assert.ok((await lstat(join(gates, "tests"))).isDirectory());
    assert.equal(await readFile(join(gates, "tests", "a.test.js"), "utf8"), "a2\n");
    assert.equal(await readFile(join(gates, "tests", "b.test.js"), "utf8"), "b\n");
    assert.equal(await git(["ls-files", "--deleted"], gates), "");
    assert.equal(
      await readFile(join(moved, "a.test.js"), "utf8"),
      "a\n",
      "nothing written through the symlink",
    );
  });
});
