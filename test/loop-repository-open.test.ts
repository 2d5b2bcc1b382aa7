/**
 * A loop's private git directory, made at its first open together with the fresh `.git` its checkouts
 * copy (one git request): both are ready when the open returns, nothing half-made is left beside them,
 * a checkout written then gets a `.git` git can use, and a second open (another process) finds them.
 */
import assert from "node:assert/strict";
import { lstat, mkdir, readdir, readFile } from "node:fs/promises";
import { join } from "node:path";
import { describe, it } from "node:test";
import { git } from "../src/git/git.ts";
import { checkOut, openLoopRepository } from "../src/git/loop-repository.ts";
import { newFolder, newRepository } from "./git-fixtures.ts";

describe("openLoopRepository", () => {
  it("makes the private git directory and the fresh .git in one go; checkouts then work", async () => {
    const root = await newRepository({ "a.txt": "a\n" });
    const sha = await git(["rev-parse", "HEAD"], root, { trim: true });
    const directory = join(await newFolder("private"), "git");
    const repository = await openLoopRepository(root, directory);
    assert.equal(await git(["rev-parse", "--is-bare-repository"], directory, { trim: true }), "true");
    assert.ok((await lstat(join(directory, "fresh-git", ".git", "HEAD"))).isFile());
    const entries = await readdir(directory);
    assert.deepEqual(
      entries.filter((name) => name.startsWith("fresh-git.")),
      [],
      `left over: ${entries.join(" ")}`,
    );
    const checkout = join(await newFolder("checkout"), "maker");
    await checkOut(repository, checkout, "maker", sha, { branch: "loop/open" });
    assert.equal(await readFile(join(checkout, "a.txt"), "utf8"), "a\n");
    assert.equal(await git(["rev-parse", "HEAD"], checkout, { trim: true }), sha);
    assert.equal(await git(["status", "--porcelain"], checkout), "");
    // Opened again (as by a later run), the same directory is taken as it is.
    const again = await openLoopRepository(root, directory);
    assert.equal(again.directory, directory);
  });

  it("a private git directory that cannot be made leaves no fresh .git folder behind and fails", async () => {
    const root = await newRepository({ "a.txt": "a\n" });
    const parent = await newFolder("blocked");
    const directory = join(parent, "git");
    // A folder where git would write its config file: init fails.
    await mkdir(join(directory, "config"), { recursive: true });
    await assert.rejects(openLoopRepository(root, directory));
    const entries = await readdir(directory);
    assert.deepEqual(
      entries.filter((name) => name.startsWith("fresh-git")),
      [],
      `left over: ${entries.join(" ")}`,
    );
  });
});
