/**
 * Recovery after a dead run: a git lock file left by a git killed mid-write (a power loss, kill -9)
 * would fail every later commit and checkout of the loop. Called right after the sweep has killed
 * every process of the dead runs, so nothing alive of this loop holds a lock.
 */
import { readdir, readFile, rm } from "node:fs/promises";
import { dirname, join, resolve } from "node:path";
import { gitResult } from "../../git/git.ts";
import type { RunContext } from "../run-context.ts";

/**
 * Removes stale git locks the loop owns and returns their paths: the `*.lock` files of the loop's
 * private git folder (its checkouts' indexes, its HEAD and config), and the `index.lock` of each of
 * its checkouts' own `.git` when that lock's folder points back at the checkout (a `.git` the maker
 * redirected at the user's repository cannot make it delete the user's lock). Never throws.
 */
export async function clearStaleIndexLocks(context: RunContext): Promise<string[]> {
  const candidates: string[] = [];
  const privateGit = join(context.layout.loopDirectory(context.loop.id), "git");
  const entries = await readdir(privateGit, { withFileTypes: true }).catch(() => []);
  for (const entry of entries) {
    if (entry.isFile() && entry.name.endsWith(".lock")) candidates.push(join(privateGit, entry.name));
  }
  for (const worktree of [context.makerWorktree, context.gateWorktree]) {
    const lock = await ownIndexLock(worktree).catch(() => undefined);
    if (lock) candidates.push(lock);
  }
  const cleared: string[] = [];
  for (const lock of candidates) {
    try {
      await rm(lock);
      cleared.push(lock);
    } catch {
      // Not there (the common case) or already gone.
    }
  }
  return cleared;
}

async function ownIndexLock(worktree: string): Promise<string | undefined> {
  const found = await gitResult(
    ["rev-parse", "--path-format=absolute", "--git-path", "index.lock"],
    worktree,
  );
  if (found.code !== 0) return undefined;
  const lock = found.stdout.trim();
  const administrative = dirname(lock);
  // A checkout's own .git folder, or a linked worktree's administrative folder whose `gitdir` names it.
  if (resolve(administrative) === resolve(worktree, ".git")) return lock;
  const pointsBack = (await readFile(join(administrative, "gitdir"), "utf8").catch(() => "")).trim();
  return resolve(pointsBack) === resolve(worktree, ".git") ? lock : undefined;
}
