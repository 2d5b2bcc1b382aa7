/**
 * `checkOut` writes the commit's bytes even where a gate planted an untracked `.gitattributes` that
 * read-tree would obey (git reads the worktree's file where the index has none at that level): at the
 * root, beside tracked files, in a folder the gate's .gitignore edit ignores as a whole, in a folder the
 * project itself ignores, in a folder the next commit adds; as a file, a symlink or a folder; with
 * eol=crlf, ident and working-tree-encoding; for a small index (read without git), a large one and a
 * version-4 one (listed by git). And a `.git` planted in a tracked folder does not outlive a checkout; a
 * tracked .gitattributes the gate rewrote and the next commit deletes is gone before read-tree writes.
 */
import assert from "node:assert/strict";
import { lstat, mkdir, readFile, stat, symlink, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { describe, it } from "node:test";
import { git } from "../src/git/git.ts";
import { checkOut, openLoopRepository } from "../src/git/loop-repository.ts";
import { maximumIndexEntries } from "../src/git/missing-index-paths.ts";
import { commitEverything, newFolder, newRepository, writeFiles } from "./git-fixtures.ts";

const shapes = ["small index", "large index", "index version 4"] as const;
type Shape = (typeof shapes)[number];

/** Two commits: the second changes app.js, adds fresh/, and leaves tests/, build/ and vendored/ alone. */
async function prepare(shape: Shape) {
  const files: Record<string, string> = {
    ".gitignore": "node_modules/\nvendored/\n",
    "app.js": "one\ntwo\n",
    "tests/a.test.js": "assert(1)\n// $Id$\nhé\n",
    "tests/deep/b.test.js": "assert(2)\n",
    "build/out.js": "built\n",
  };
  if (shape === "large index")
    for (let index = 0; index <= maximumIndexEntries; index++) files[`many/${index}.txt`] = `${index}\n`;
  const root = await newRepository(files);
  // A tracked folder the project ignores (vendored code kept in git).
  await mkdir(join(root, "vendored"));
  await writeFile(join(root, "vendored", "lib.js"), "lib\n");
  await git(["add", "--force", "vendored/lib.js"], root);
  const first = await commitEverything(root, "vendored");
  await writeFiles(root, { "app.js": "one\ntwo\nthree\n", "fresh/new.js": "new\n" });
  const second = await commitEverything(root, "next");
  return { root, first, second };
}

const prepared = new Map<Shape, ReturnType<typeof prepare>>();
const repositoryFor = (shape: Shape) => {
  let found = prepared.get(shape);
  if (!found) {
    found = prepare(shape);
    prepared.set(shape, found);
  }
  return found;
};

async function withShape(shape: Shape, run: () => Promise<void>): Promise<void> {
  const saved = process.env.GIT_INDEX_VERSION;
  if (shape === "index version 4") process.env.GIT_INDEX_VERSION = "4";
  try {
    await run();
  } finally {
    if (saved === undefined) delete process.env.GIT_INDEX_VERSION;
    else process.env.GIT_INDEX_VERSION = saved;
  }
}

/** Every tracked file of `sha` holds exactly its blob's bytes in `checkout`, and nothing is untracked. */
async function assertCommitBytes(root: string, checkout: string, sha: string): Promise<void> {
  const paths = (await git(["ls-tree", "-r", "-z", "--name-only", sha], root))
    .split("\0")
    .filter((path) => path !== "" && !path.startsWith("many/"));
  for (const path of paths) {
    const expected = await git(["cat-file", "blob", `${sha}:${path}`], root);
    assert.equal(
      await readFile(join(checkout, path), "latin1"),
      Buffer.from(expected).toString("latin1"),
      path,
    );
  }
  assert.equal(await git(["status", "--porcelain", "--untracked-files=all"], checkout), "");
}

const attributes = {
  "eol=crlf": "* text eol=crlf\n",
  ident: "* ident\n",
  "working-tree-encoding": "*.js text working-tree-encoding=UTF-16\n",
} as const;

/** Where the gate plants its .gitattributes, and the .gitignore it leaves so that the first clean keeps it. */
const places = {
  "at the root": { file: ".gitattributes", ignore: "node_modules/\nvendored/\n/.gitattributes\n" },
  "beside tracked files": {
    file: "tests/.gitattributes",
    ignore: "node_modules/\nvendored/\n.gitattributes\n",
  },
  "deeper than the files it names": {
    file: "tests/deep/.gitattributes",
    ignore: "node_modules/\nvendored/\n.gitattributes\n",
  },
  "in a folder the gate's .gitignore ignores as a whole": {
    file: "build/.gitattributes",
    ignore: "node_modules/\nvendored/\nbuild/\n",
  },
  "in a folder the project itself ignores": { file: "vendored/.gitattributes", ignore: undefined },
  "in a folder only the next commit has": {
    file: "fresh/.gitattributes",
    ignore: "node_modules/\nvendored/\nfresh/\n",
  },
} as const;

/** What the gate edits so that read-tree writes the files again (their stat no longer matches). */
async function touchTracked(gates: string): Promise<void> {
  for (const path of ["app.js", "tests/a.test.js", "tests/deep/b.test.js", "build/out.js", "vendored/lib.js"])
    await writeFile(join(gates, path), "edited by the gate\n");
}

async function newGates(shape: Shape) {
  const { root, first, second } = await repositoryFor(shape);
  const repository = await openLoopRepository(root, join(await newFolder("private"), "git"));
  const gates = join(await newFolder("gates"), "checkout");
  return { root, first, second, repository, gates };
}

describe("checkOut after a gate planted an untracked .gitattributes", () => {
  for (const shape of shapes) {
    for (const [place, { file, ignore }] of Object.entries(places)) {
      it(`writes the commit's bytes: eol=crlf ${place} (${shape})`, async () => {
        const { root, first, second, repository, gates } = await newGates(shape);
        await withShape(shape, async () => {
          await checkOut(repository, gates, "gates", first, { detached: true });
          await touchTracked(gates);
          await mkdir(join(gates, file, ".."), { recursive: true });
          await writeFile(join(gates, file), attributes["eol=crlf"]);
          if (ignore) await writeFile(join(gates, ".gitignore"), ignore);
          await checkOut(repository, gates, "gates", second, { detached: true });
          await assertCommitBytes(root, gates, second);
          await assert.rejects(lstat(join(gates, file)), { code: "ENOENT" });
          // And the checkout after it too (a planted file that survived would apply again).
          await touchTracked(gates);
          await checkOut(repository, gates, "gates", second, { detached: true });
          await assertCommitBytes(root, gates, second);
        });
      });
    }

    for (const [name, text] of Object.entries(attributes)) {
      it(`writes the commit's bytes: ${name} beside tracked files in a folder the gate ignored (${shape})`, async () => {
        const { root, first, second, repository, gates } = await newGates(shape);
        await withShape(shape, async () => {
          await checkOut(repository, gates, "gates", first, { detached: true });
          await touchTracked(gates);
          await writeFile(join(gates, "tests", ".gitattributes"), text);
          await writeFile(join(gates, ".gitignore"), "node_modules/\nvendored/\ntests/\n");
          await checkOut(repository, gates, "gates", second, { detached: true });
          await assertCommitBytes(root, gates, second);
        });
      });
    }

    it(`writes the commit's bytes: a .gitattributes that is a symlink or a folder (${shape})`, async () => {
      const { root, first, second, repository, gates } = await newGates(shape);
      await withShape(shape, async () => {
        await checkOut(repository, gates, "gates", first, { detached: true });
        await touchTracked(gates);
        const outside = join(await newFolder("outside"), "attributes");
        await writeFile(outside, attributes["eol=crlf"]);
        await symlink(outside, join(gates, "tests", ".gitattributes"));
        await mkdir(join(gates, "vendored", ".gitattributes"));
        await writeFile(join(gates, "vendored", ".gitattributes", "x"), attributes["eol=crlf"]);
        await writeFile(join(gates, ".gitignore"), "node_modules/\nvendored/\ntests/\n");
        await checkOut(repository, gates, "gates", second, { detached: true });
        await assertCommitBytes(root, gates, second);
        await assert.rejects(lstat(join(gates, "tests", ".gitattributes")), { code: "ENOENT" });
        await assert.rejects(lstat(join(gates, "vendored", ".gitattributes")), { code: "ENOENT" });
        assert.equal(
          await readFile(outside, "utf8"),
          attributes["eol=crlf"],
          "the symlink's target is not touched",
        );
      });
    });

    it(`removes a .git planted in a tracked folder (${shape})`, async () => {
      const { root, first, second, repository, gates } = await newGates(shape);
      await withShape(shape, async () => {
        await checkOut(repository, gates, "gates", first, { detached: true });
        await writeFile(join(gates, "tests", ".git"), "gitdir: /nowhere\n");
        await mkdir(join(gates, "vendored", ".git"));
        await writeFile(join(gates, "vendored", ".git", "HEAD"), "ref: refs/heads/main\n");
        await checkOut(repository, gates, "gates", second, { detached: true });
        await assert.rejects(lstat(join(gates, "tests", ".git")), { code: "ENOENT" });
        await assert.rejects(lstat(join(gates, "vendored", ".git")), { code: "ENOENT" });
        await assertCommitBytes(root, gates, second);
        assert.ok((await stat(join(gates, ".git", "HEAD"))).isFile(), "the checkout's own .git is rebuilt");
      });
    });
  }
});

describe("checkOut of the commit it holds (a recheck) after a gate planted an untracked .gitattributes", () => {
  for (const shape of shapes) {
    for (const [place, { file, ignore }] of Object.entries(places)) {
      it(`writes the commit's bytes: eol=crlf ${place} (${shape})`, async () => {
        const { root, second, repository, gates } = await newGates(shape);
        await withShape(shape, async () => {
          await checkOut(repository, gates, "gates", second, { detached: true });
          await touchTracked(gates);
          await mkdir(join(gates, file, ".."), { recursive: true });
          await writeFile(join(gates, file), attributes["eol=crlf"]);
          if (ignore) await writeFile(join(gates, ".gitignore"), ignore);
          await checkOut(repository, gates, "gates", second, { detached: true });
          await assertCommitBytes(root, gates, second);
          await assert.rejects(lstat(join(gates, file)), { code: "ENOENT" });
        });
      });
    }
  }
});

describe("checkOut of a commit that deletes a tracked .gitattributes the gate rewrote", () => {
  it("writes the commit's bytes (read-tree deletes it before it writes the files)", async () => {
    const root = await newRepository({ "tests/a.test.js": "a\n", "tests/.gitattributes": "*.bin binary\n" });
    const first = await git(["rev-parse", "HEAD"], root, { trim: true });
    await git(["rm", "--quiet", "tests/.gitattributes"], root);
    await writeFiles(root, { "app.js": "x\n" });
    const second = await commitEverything(root, "no attributes");
    const repository = await openLoopRepository(root, join(await newFolder("private"), "git"));
    const gates = join(await newFolder("gates"), "checkout");
    await checkOut(repository, gates, "gates", first, { detached: true });
    await writeFile(join(gates, "tests", ".gitattributes"), attributes["eol=crlf"]);
    await writeFile(join(gates, "tests", "a.test.js"), "edited by the gate\n");
    await checkOut(repository, gates, "gates", second, { detached: true });
    await assertCommitBytes(root, gates, second);
    await assert.rejects(lstat(join(gates, "tests", ".gitattributes")), { code: "ENOENT" });
  });
});
