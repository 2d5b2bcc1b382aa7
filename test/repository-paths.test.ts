/**
 * Where the loop's private git finds the user's objects and exclude file: asked of git once, in the
 * rev-parse that finds a loop's repository and base before it runs (`repositoryCommitAt`), and the same
 * as git's own answer to the question asked alone, from the top level or from a subfolder.
 */
import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import { mkdir } from "node:fs/promises";
import { join } from "node:path";
import { after, before, test } from "node:test";
import { promisify } from "node:util";
import { repositoryCommitAt } from "../src/git/repository.ts";
import { rememberRepositoryPaths, repositoryPaths } from "../src/git/repository-paths.ts";
import { createSandbox, type Sandbox } from "./support/loop-sandbox.ts";

const execFileAsync = promisify(execFile);
let sandbox: Sandbox;
before(async () => {
  sandbox = await createSandbox({ "README.md": "# repo\n", "src/a.txt": "a\n" });
});
after(() => sandbox.cleanup());

/** git's own answer, asked alone in `cwd`. */
async function askedAlone(cwd: string): Promise<{ objects: string; exclude: string }> {
  const { stdout } = await execFileAsync(
    "git",
    ["rev-parse", "--path-format=absolute", "--git-path", "objects", "--git-path", "info/exclude"],
    { cwd },
  );
  const [objects, exclude] = stdout.trim().split("\n");
  return { objects, exclude };
}

test("finding the loop's repository and base leaves the paths git gives when asked alone", async () => {
  const folder = join(sandbox.repo, "src");
  await mkdir(folder, { recursive: true });
  const found = await repositoryCommitAt(folder, "HEAD");
  assert.ok(found, "the usual case");
  assert.equal(found.commit, await sandbox.git("rev-parse", "HEAD"));
  assert.deepEqual(await repositoryPaths(found.root), await askedAlone(sandbox.repo));
  assert.deepEqual(await askedAlone(folder), await askedAlone(sandbox.repo));
});

test("a base that names no commit leaves nothing, and the paths are then asked of git", async () => {
  const other = await createSandbox({ "README.md": "# other\n" });
  try {
    assert.equal(await repositoryCommitAt(other.repo, "no-such-branch"), undefined);
    assert.deepEqual(await repositoryPaths(other.repo), await askedAlone(other.repo));
  } finally {
    await other.cleanup();
  }
});

test("an answer already kept is not replaced", async () => {
  const root = join(sandbox.root, "not-a-repository");
  rememberRepositoryPaths(root, { objects: "/kept/objects", exclude: "/kept/exclude" });
  rememberRepositoryPaths(root, { objects: "/other/objects", exclude: "/other/exclude" });
  assert.deepEqual(await repositoryPaths(root), { objects: "/kept/objects", exclude: "/kept/exclude" });
});
