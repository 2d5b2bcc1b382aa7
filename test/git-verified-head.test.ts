/**
 * `validate`'s HEAD read from files (verified-head.ts): the answer `repositoryCommitAt` gives, and only
 * for an object name git confirmed as a commit of the same git directory; everything else (a new
 * commit, a tag a branch names, another repository, odd refs, a linked worktree, a symlinked `.git`,
 * a damaged record) is left to git.
 */
import assert from "node:assert/strict";
import { mkdir, rm, symlink, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { test } from "node:test";
import { git } from "../src/git/git.ts";
import { repositoryCommitAt } from "../src/git/repository.ts";
import {
  maximumVerifiedCommits,
  rememberVerifiedCommit,
  verifiedCommitsPath,
  verifiedHeadAt,
} from "../src/git/verified-head.ts";

const { commitEverything, newFolder, newRepository, writeFiles } = await import("./git-fixtures.ts");

/** Git's answer for HEAD at `path`, kept as confirmed in `home`. */
async function confirm(home: string, path: string) {
  const answer = await repositoryCommitAt(path, "HEAD");
  assert.ok(answer);
  rememberVerifiedCommit(home, answer);
  return answer;
}

test("a HEAD git confirmed is read from files, as git answers it: loose, packed and detached", async () => {
  const home = await newFolder("home");
  const root = await newRepository({ "a.txt": "a\n" });
  assert.equal(await verifiedHeadAt(root, "HEAD", home), undefined, "not confirmed yet");
  const answer = await confirm(home, root);
  assert.deepEqual(await verifiedHeadAt(root, "HEAD", home), answer);
  await mkdir(join(root, "deeper"), { recursive: true });
  assert.deepEqual(await verifiedHeadAt(join(root, "deeper"), "HEAD", home), answer);
  await git(["pack-refs", "--all"], root);
  assert.deepEqual(await verifiedHeadAt(root, "HEAD", home), await repositoryCommitAt(root, "HEAD"));
  await git(["checkout", "-q", "--detach"], root);
  assert.deepEqual(await verifiedHeadAt(root, "HEAD", home), await repositoryCommitAt(root, "HEAD"));
  assert.equal(await verifiedHeadAt(root, "main", home), undefined, "only HEAD");
});

test("a new commit, or a branch that names a tag, is git's to answer", async () => {
  const home = await newFolder("home");
  const root = await newRepository({ "a.txt": "a\n" });
  const first = await confirm(home, root);
  await writeFiles(root, { "a.txt": "b\n" });
  await commitEverything(root, "second");
  assert.equal(await verifiedHeadAt(root, "HEAD", home), undefined);
  // refs/heads/main names an annotated tag: git peels it (HEAD^{commit}); the files see the tag.
  await git(["-c", "user.name=T", "-c", "user.email=t@e", "tag", "-a", "-m", "t", "v1", first.commit], root);
  const tag = await git(["rev-parse", "refs/tags/v1"], root, { trim: true });
  // (git refuses to write it: a hand-written ref file)
  await writeFile(join(root, ".git", "refs", "heads", "main"), `${tag}\n`);
  const peeled = await confirm(home, root);
  assert.equal(peeled.commit, first.commit);
  assert.equal(await verifiedHeadAt(root, "HEAD", home), undefined);
});

test("a commit confirmed in one repository is not used for another holding the same commit", async () => {
  const home = await newFolder("home");
  const root = await newRepository({ "a.txt": "a\n" });
  await confirm(home, root);
  const copy = join(await newFolder("clone"), "copy");
  await git(["clone", "-q", root, copy], root);
  assert.equal(await verifiedHeadAt(copy, "HEAD", home), undefined);
  // A repository made again at the same path, with another history, names another commit.
  await rm(join(root, ".git"), { recursive: true, force: true });
  await git(["init", "-q", "-b", "main"], root);
  await writeFiles(root, { "b.txt": "b\n" });
  await commitEverything(root, "another history");
  assert.equal(await verifiedHeadAt(root, "HEAD", home), undefined);
});

test("odd refs, a linked worktree, a symlinked .git and a damaged record are git's", async () => {
  const home = await newFolder("home");
  const root = await newRepository({ "a.txt": "a\n" });
  const answer = await confirm(home, root);
  // A loose ref that is a symbolic link (core.preferSymlinkRefs).
  await git(["branch", "other"], root);
  await git(
    ["-c", "core.preferSymlinkRefs=true", "symbolic-ref", "refs/heads/linked", "refs/heads/other"],
    root,
  );
  await git(["symbolic-ref", "HEAD", "refs/heads/linked"], root);
  assert.equal((await repositoryCommitAt(root, "HEAD"))?.commit, answer.commit);
  assert.equal(await verifiedHeadAt(root, "HEAD", home), undefined);
  await git(["symbolic-ref", "HEAD", "refs/heads/main"], root);
  assert.deepEqual(await verifiedHeadAt(root, "HEAD", home), answer);
  // HEAD on a branch without a commit.
  await git(["symbolic-ref", "HEAD", "refs/heads/unborn"], root);
  assert.equal(await verifiedHeadAt(root, "HEAD", home), undefined);
  await git(["symbolic-ref", "HEAD", "refs/heads/main"], root);
  // A linked worktree on the same commit.
  const linked = join(await newFolder("linked"), "side");
  await git(["worktree", "add", "-q", "--detach", linked], root);
  assert.equal(await verifiedHeadAt(linked, "HEAD", home), undefined);
  // A checkout whose .git is a symbolic link to the repository's.
  const pointer = await newFolder("pointer");
  await symlink(join(root, ".git"), join(pointer, ".git"));
  assert.equal(await verifiedHeadAt(pointer, "HEAD", home), undefined);
  // Replacement refs (git replace), loose or packed: git reads another object in place of one named.
  await writeFiles(root, { "a.txt": "replacement\n" });
  const other = await commitEverything(root, "replacement");
  await git(["reset", "-q", "--hard", answer.commit], root);
  await git(["replace", answer.commit, other], root);
  assert.equal(await verifiedHeadAt(root, "HEAD", home), undefined);
  await git(["pack-refs", "--all"], root);
  assert.equal(await verifiedHeadAt(root, "HEAD", home), undefined);
  await git(["replace", "-d", answer.commit], root);
  assert.deepEqual(await verifiedHeadAt(root, "HEAD", home), answer);
  // A damaged record, a record of another shape.
  await writeFile(verifiedCommitsPath(home), "{ not json");
  assert.equal(await verifiedHeadAt(root, "HEAD", home), undefined);
  await writeFile(
    verifiedCommitsPath(home),
    JSON.stringify({ entries: [{ directory: 1, commit: answer.commit }] }),
  );
  assert.equal(await verifiedHeadAt(root, "HEAD", home), undefined);
  // Remembering over a damaged record starts it again.
  rememberVerifiedCommit(home, answer);
  assert.deepEqual(await verifiedHeadAt(root, "HEAD", home), answer);
});

test("the record keeps the most recently confirmed commits", async () => {
  const home = await newFolder("home");
  const root = await newRepository({ "a.txt": "a\n" });
  const answer = await confirm(home, root);
  for (let index = 0; index < maximumVerifiedCommits; index++) {
    rememberVerifiedCommit(home, { ...answer, commonDirectory: `/elsewhere/${index}/.git` });
  }
  assert.equal(await verifiedHeadAt(root, "HEAD", home), undefined, "the oldest was dropped");
  rememberVerifiedCommit(home, answer);
  rememberVerifiedCommit(home, answer);
  assert.deepEqual(await verifiedHeadAt(root, "HEAD", home), answer);
});

// Review findings: each case below is one where git fails HEAD^{commit} (or may, later) while the files
// alone name an object git confirmed once; the files must then leave the answer to git.

test("a repository whose objects live elsewhere (alternates, a shared clone) is git's", async () => {
  const home = await newFolder("home");
  const upstream = await newRepository({ "a.txt": "a\n" });
  const shared = join(await newFolder("shared"), "repo");
  await git(["clone", "-q", "--shared", upstream, shared], upstream);
  await confirm(home, shared);
  // The upstream may prune the commit at any time: git would then fail, the files would not know.
  assert.equal(await verifiedHeadAt(shared, "HEAD", home), undefined);
});

test("loose refs git rejects are not read: leading or odd whitespace after the name", async () => {
  const home = await newFolder("home");
  const root = await newRepository({ "a.txt": "a\n" });
  const answer = await confirm(home, root);
  const loose = join(root, ".git", "refs", "heads", "main");
  for (const text of [
    ` ${answer.commit}\n`,
    `${answer.commit}\u00a0\n`,
    `${answer.commit}\v`,
    `\t${answer.commit}`,
  ]) {
    await writeFile(loose, text, "latin1");
    assert.equal(await verifiedHeadAt(root, "HEAD", home), undefined, JSON.stringify(text));
  }
  await writeFile(loose, `${answer.commit}\r\n`);
  assert.deepEqual(await verifiedHeadAt(root, "HEAD", home), answer, "git accepts a CR before the LF");
});

test("branch names git refuses are not read from files", async () => {
  const home = await newFolder("home");
  const root = await newRepository({ "a.txt": "a\n" });
  const answer = await confirm(home, root);
  for (const name of ["a.", "x@{y}", "ends.lock.", "@"]) {
    await writeFile(join(root, ".git", "refs", "heads", name), `${answer.commit}\n`);
    await writeFile(join(root, ".git", "HEAD"), `ref: refs/heads/${name}\n`);
    assert.equal(await verifiedHeadAt(root, "HEAD", home), undefined, name);
  }
});

test("replacement refs at the time git answered, or under GIT_REPLACE_REF_BASE, keep the answer from being kept", async () => {
  const home = await newFolder("home");
  const root = await newRepository({ "a.txt": "a\n" });
  const head = await git(["rev-parse", "HEAD"], root, { trim: true });
  const blob = await git(["rev-parse", "HEAD:a.txt"], root, { trim: true });
  // refs/heads/main names a blob that a replacement makes look like the commit.
  await git(["replace", "-f", blob, head], root);
  await writeFile(join(root, ".git", "refs", "heads", "main"), `${blob}\n`);
  const replaced = await repositoryCommitAt(root, "HEAD");
  assert.equal(replaced?.commit, blob, "git answers through the replacement");
  if (replaced) rememberVerifiedCommit(home, replaced);
  await git(["replace", "-d", blob], root);
  assert.equal(await verifiedHeadAt(root, "HEAD", home), undefined, "kept while a replacement was active");

  const other = await newRepository({ "b.txt": "b\n" });
  const previous = process.env.GIT_REPLACE_REF_BASE;
  process.env.GIT_REPLACE_REF_BASE = "refs/alt-replace/";
  try {
    const answer = await repositoryCommitAt(other, "HEAD");
    assert.ok(answer);
    rememberVerifiedCommit(home, answer);
    assert.equal(await verifiedHeadAt(other, "HEAD", home), undefined, "replacements elsewhere: git's");
  } finally {
    if (previous === undefined) delete process.env.GIT_REPLACE_REF_BASE;
    else process.env.GIT_REPLACE_REF_BASE = previous;
  }
  assert.equal(await verifiedHeadAt(other, "HEAD", home), undefined, "not kept under the variable either");
});

test("a large packed-refs is git's to read (git searches it; reading it whole cost more than git)", async () => {
  const home = await newFolder("home");
  const root = await newRepository({ "a.txt": "a\n" });
  const answer = await confirm(home, root);
  const lines = ["# pack-refs with: peeled fully-peeled sorted "];
  for (let index = 0; index < 20_000; index++)
    lines.push(`${answer.commit} refs/pull/${String(index).padStart(6, "0")}/head`);
  await writeFile(join(root, ".git", "packed-refs"), `${lines.join("\n")}\n`);
  assert.equal(await verifiedHeadAt(root, "HEAD", home), undefined);
});

test("a shallow or grafted repository is git's", async () => {
  const home = await newFolder("home");
  const root = await newRepository({ "a.txt": "a\n" });
  const answer = await confirm(home, root);
  await writeFile(join(root, ".git", "shallow"), `${answer.commit}\n`);
  assert.equal(await verifiedHeadAt(root, "HEAD", home), undefined, "shallow");
  await rm(join(root, ".git", "shallow"));
  await mkdir(join(root, ".git", "info"), { recursive: true });
  await writeFile(join(root, ".git", "info", "grafts"), `${answer.commit}\n`);
  assert.equal(await verifiedHeadAt(root, "HEAD", home), undefined, "grafts");
});

test("a record that cannot be written leaves no temporary file behind", async () => {
  const home = await newFolder("home");
  const root = await newRepository({ "a.txt": "a\n" });
  await mkdir(verifiedCommitsPath(home), { recursive: true });
  const answer = await repositoryCommitAt(root, "HEAD");
  assert.ok(answer);
  rememberVerifiedCommit(home, answer);
  rememberVerifiedCommit(home, answer);
  const { readdir } = await import("node:fs/promises");
  assert.deepEqual(await readdir(join(home, "cache")), ["verified-commits.json"]);
});
