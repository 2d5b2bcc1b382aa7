/**
 * The parts of a sandbox user's `.git` that a loop must leave alone, as comparable text: HEAD, the
 * index's hash, the config, the hooks folder's listing, `info/exclude`, every ref except the loop's own
 * (`refs/heads/loop/*`, `refs/loopwright/*`, remote-tracking refs), worktree registrations and status.
 */
import { createHash } from "node:crypto";
import { existsSync } from "node:fs";
import { readdir, readFile } from "node:fs/promises";
import { join } from "node:path";
import type { Sandbox } from "./loop-sandbox.ts";

export async function userRepositoryState(sandbox: Sandbox): Promise<Record<string, string>> {
  const gitDirectory = join(sandbox.repo, ".git");
  const hash = async (path: string) =>
    existsSync(path)
      ? createHash("sha256")
          .update(await readFile(path))
          .digest("hex")
      : "absent";
  const hooks = await readdir(join(gitDirectory, "hooks")).catch(() => []);
  const refs = (await sandbox.git("for-each-ref", "--format=%(refname) %(objectname)"))
    .split("\n")
    .filter((line) => !/^refs\/(heads\/loop\/|loopwright\/|remotes\/)/.test(line))
    .join("\n");
  return {
    HEAD: await readFile(join(gitDirectory, "HEAD"), "utf8"),
    index: await hash(join(gitDirectory, "index")),
    config: await readFile(join(gitDirectory, "config"), "utf8"),
    hooks: JSON.stringify(hooks.sort()),
    infoExclude: await hash(join(gitDirectory, "info", "exclude")),
    refs,
    worktrees: JSON.stringify(await readdir(join(gitDirectory, "worktrees")).catch(() => [])),
    status: await sandbox.git("status", "--porcelain"),
  };
}
