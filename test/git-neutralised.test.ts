/**
 * No configuration makes loopwright's own git commands run a program. A repository whose config (the
 * user's own, or one a maker reached) sets every key that runs something (fs monitor, hooks path and
 * every hook, pager, external diff, textconv, filters with a `.gitattributes` that uses them, signing,
 * automatic gc), and the same in the global config: every git operation of a loop (checkout of the
 * maker's and the gates' folders, snapshot, commit, branch moves, diffs, trailers, push) runs none of it.
 */
import assert from "node:assert/strict";
import { chmod, readdir, readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { describe, it } from "node:test";
import { commitTree, readTrailers, treeOf } from "../src/git/commits.ts";
import { changedFiles, diffText } from "../src/git/diffs.ts";
import { git } from "../src/git/git.ts";
import { branchTip, ensureBranch, moveBranch } from "../src/git/loop-branch.ts";
import { changedSince, checkOut, openLoopRepository, snapshotTree } from "../src/git/loop-repository.ts";
import { pushBranch } from "../src/git/push.ts";
import { newFolder, newRepository, writeFiles } from "./git-fixtures.ts";

const hookNames = [
  "pre-commit",
  "post-commit",
  "commit-msg",
  "post-checkout",
  "pre-push",
  "reference-transaction",
  "post-index-change",
  "pre-auto-gc",
  "post-rewrite",
];

/** Points every program-running key of `scope` (`--local` in `root`, or `--global`) at a marker writer. */
async function plantEverything(root: string, scope: string, markers: string): Promise<void> {
  const program = join(await newFolder("programs"), "planted.sh");
  await writeFile(program, `#!/bin/sh\ntouch "${markers}/$(basename "$0")-$$"\ncat\n`);
  await chmod(program, 0o755);
  const hooks = await newFolder("hooks");
  for (const name of hookNames) {
    await writeFile(join(hooks, name), `#!/bin/sh\ntouch "${markers}/hook-${name}-$$"\n`);
    await chmod(join(hooks, name), 0o755);
  }
  const keys: [string, string][] = [
    ["core.fsmonitor", program],
    ["core.hooksPath", hooks],
    ["core.pager", program],
    ["pager.diff", program],
    ["diff.external", program],
    ["diff.evil.textconv", program],
    ["diff.evil.command", program],
    ["filter.evil.clean", program],
    ["filter.evil.smudge", program],
    ["filter.evil.process", program],
    ["filter.evil.required", "true"],
    ["commit.gpgSign", "true"],
    ["gpg.program", program],
    ["gc.auto", "1"],
    ["gc.autoDetach", "false"],
  ];
  for (const [key, value] of keys) {
    // A push's receiving side (a remote on this machine) reads the global hooks path: a remote's hooks
    // are the remote's. Keeping a maker out of the global config is write confinement (the sandbox).
    if (scope === "--global" && key === "core.hooksPath") continue;
    await git(["config", scope, key, value], root);
  }
}

describe("loopwright's git under a hostile configuration", () => {
  for (const scope of ["--local", "--global"]) {
    it(`runs no program that ${scope} config names, in any step of a loop`, async () => {
      const root = await newRepository({
        "README.md": "# demo\n",
        ".gitignore": "node_modules/\n",
        ".gitattributes": "* filter=evil diff=evil\n",
        "src/a.txt": "one\n",
      });
      const markers = await newFolder("markers");
      const remote = await newFolder("remote");
      await git(["init", "--quiet", "--bare", remote], remote);
      await git(["remote", "add", "origin", remote], root);
      const base = await git(["rev-parse", "HEAD"], root, { trim: true });
      const globalConfig = process.env.GIT_CONFIG_GLOBAL ?? "";
      const globalBefore = await readFile(globalConfig, "utf8");
      await plantEverything(root, scope, markers);
      try {
        const repository = await openLoopRepository(root, join(await newFolder("state"), "git"));
        const maker = join(await newFolder("checkouts"), "maker");
        const gates = join(await newFolder("checkouts"), "gates");
        await ensureBranch(root, "loop/x", base);
        await checkOut(repository, maker, "maker", base, { branch: "loop/x" });
        await checkOut(repository, gates, "gates", base, { detached: true });
        // The maker's turn: a change, a new file, a deletion, and its own hostile .git.
        await writeFiles(maker, { "src/a.txt": "two\n", "src/b.txt": "new\n" });
        await plantEverything(maker, "--local", markers);
        assert.deepEqual(await changedSince(repository, maker, "maker", base), ["src/a.txt", "src/b.txt"]);
        const tree = await snapshotTree(repository, maker, "maker");
        assert.notEqual(tree, await treeOf(root, base));
        const sha = await commitTree(root, tree, base, {
          message: "iteration 1",
          trailers: { "Loop-Id": "x" },
        });
        await moveBranch(root, "loop/x", sha, base);
        assert.equal(await branchTip(root, "loop/x"), sha);
        await checkOut(repository, gates, "gates", sha, { detached: true });
        assert.equal(
          await readFile(join(gates, "src/a.txt"), "utf8"),
          "two\n",
          "no smudge filter rewrote it",
        );
        assert.deepEqual(await changedFiles(root, base, sha), ["src/a.txt", "src/b.txt"]);
        assert.match(await diffText(root, base, sha), /^\+two$/m);
        assert.deepEqual(await readTrailers(root, sha), { "Loop-Id": "x" });
        assert.deepEqual(await pushBranch(root, "origin", "loop/x"), { pushed: true });
        await checkOut(repository, maker, "maker", sha, { branch: "loop/x" });
        assert.deepEqual(await readdir(markers), [], "no planted program ran");
      } finally {
        await writeFile(globalConfig, globalBefore);
      }
    });
  }
});
