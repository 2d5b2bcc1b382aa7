/**
 * Attacks on the gates' checkout of the next commit that skips its clean after read-tree
 * (loop-repository.ts, `cleanAfterReadTreeIdle`). The skip holds only if read-tree leaves nothing
 * untracked that the first clean removed not: whatever survives it is a file the gates see and the
 * commit lacks (a cheat). Two ways it does:
 * - the first clean skips a folder standing where the index tracks a file or symlink, when it would
 *   list that folder whole (git's clean drops any listed path the index tracks: `index_name_is_other`),
 *   and read-tree, which cannot unlink a folder, leaves it where the next commit drops that path;
 * - read-tree cannot delete a file the next commit drops in a folder a gate made read-only (it warns
 *   and succeeds); the clean after it fails there, and `checkOut` with it.
 * Each case: after `checkOut` of the next commit, either it failed, or git's own clean (the same
 * command, a dry run) finds nothing left to remove. They pass where the clean after read-tree runs.
 */
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { chmod, rm, symlink, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { describe, it } from "node:test";
import { git } from "../src/git/git.ts";
import { checkOut, type LoopRepository, openLoopRepository } from "../src/git/loop-repository.ts";
import { commitEverything, newFolder, newRepository, writeFiles } from "./git-fixtures.ts";

/** What git's clean, run as `checkOut` runs it, would still remove (a dry run). */
async function leftToClean(repository: LoopRepository, gates: string): Promise<string> {
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

/**
 * The gates' checkout of a repository's first commit (`files`, then `first` applied when given), left by a gate
 * (`leave`), then of its second (`change` applied): what git's clean still finds, or "failed" when the
 * checkout of the second failed. `after` runs once the checkout ended, failed or not.
 */
async function nextCheckout(
  files: Record<string, string>,
  first: ((root: string) => Promise<void>) | undefined,
  change: (root: string) => Promise<void>,
  leave: (gates: string) => Promise<void>,
  after: () => Promise<void> = async () => {},
): Promise<string> {
  const root = await newRepository(files);
  if (first) await first(root);
  const firstSha = first
    ? await commitEverything(root, "first")
    : await git(["rev-parse", "HEAD"], root, { trim: true });
  await change(root);
  const second = await commitEverything(root, "second");
  const repository = await openLoopRepository(root, join(await newFolder("private"), "git"));
  const gates = join(await newFolder("gates"), "checkout");
  await checkOut(repository, gates, "gates", firstSha, { detached: true });
  await leave(gates);
  let failed = false;
  try {
    await checkOut(repository, gates, "gates", second, { detached: true }).catch(() => {
      failed = true;
    });
  } finally {
    await after();
  }
  return failed ? "failed" : leftToClean(repository, gates);
}

const files = { ".gitignore": "*.log\n", "src/keep.js": "keep\n", "x.txt": "x\n" };

describe("checkOut of the next commit: no file of a gate's survives where the clean after read-tree removes it", () => {
  for (const [what, path] of [
    ["file", "src/util"],
    ["file at the root", "util"],
  ] as const) {
    it(`a tracked ${what} the next commit deletes, replaced by a gate's folder (a package to import)`, async () => {
      const left = await nextCheckout(
        { ...files, [path]: "honest\n" },
        undefined,
        (root) => rm(join(root, path)),
        async (gates) => {
          await rm(join(gates, path));
          await writeFiles(gates, {
            [`${path}/__init__.py`]: "PLANTED\n",
            [`${path}/index.js`]: "PLANTED\n",
          });
        },
      );
      assert.ok(left === "" || left === "failed", left);
    });
  }

  it("a tracked symlink the next commit deletes, replaced by a gate's folder", async () => {
    const left = await nextCheckout(
      files,
      (root) => symlink("src", join(root, "lib")),
      (root) => rm(join(root, "lib")),
      async (gates) => {
        await rm(join(gates, "lib"));
        await writeFiles(gates, { "lib/index.js": "PLANTED\n" });
      },
    );
    assert.ok(left === "" || left === "failed", left);
  });

  it("a tracked file the next commit deletes, replaced by a gate's nested repository", async () => {
    const left = await nextCheckout(
      { ...files, "src/lib": "honest\n" },
      undefined,
      (root) => rm(join(root, "src", "lib")),
      async (gates) => {
        await rm(join(gates, "src", "lib"));
        await git(["init", "--quiet", join(gates, "src", "lib")], gates);
        await writeFiles(gates, { "src/lib/index.js": "PLANTED\n" });
      },
    );
    assert.ok(left === "" || left === "failed", left);
  });

  it("a tracked file the next commit makes a folder, replaced by a gate's folder: its file beside the commit's", async () => {
    const left = await nextCheckout(
      { ...files, "src/util": "honest\n" },
      undefined,
      async (root) => {
        await rm(join(root, "src", "util"));
        await writeFiles(root, { "src/util/index.js": "honest\n" });
      },
      async (gates) => {
        await rm(join(gates, "src", "util"));
        await writeFiles(gates, { "src/util/planted.js": "PLANTED\n" });
      },
    );
    assert.ok(left === "" || left === "failed", left);
  });

  it("a tracked file the next commit deletes, rewritten by a gate in a folder it made read-only", async (t) => {
    // A plain user's gate does `chmod a-w`; root ignores modes, where the immutable attribute does it.
    const folder = (gates: string) => join(gates, "src");
    let undo: (() => Promise<void>) | undefined;
    let unable = false;
    const left = await nextCheckout(
      { ...files, "src/helper.js": "honest\n" },
      undefined,
      (root) => rm(join(root, "src", "helper.js")),
      async (gates) => {
        await writeFile(join(gates, "src", "helper.js"), "PLANTED\n");
        if (process.getuid?.() !== 0) {
          await chmod(folder(gates), 0o555);
          undo = () => chmod(folder(gates), 0o755);
          return;
        }
        try {
          execFileSync("chattr", ["+i", folder(gates)], { stdio: "ignore" });
          undo = async () => {
            execFileSync("chattr", ["-i", folder(gates)], { stdio: "ignore" });
          };
        } catch {
          unable = true;
        }
      },
      async () => undo?.(),
    );
    if (unable) return t.skip("no way to make a folder read-only here");
    assert.ok(left === "" || left === "failed", left);
  });
});
