/**
 * Recovery after a dead run: git's `index.lock` left in the loop's own worktrees (a git killed
 * mid-write, a power loss) would fail every later commit and checkout there. Called right after the
 * sweep has killed every process of the dead runs, so nothing alive of this loop holds the lock.
 */
import { readFile, rm } from "node:fs/promises";
import { dirname, join, resolve } from "node:path";
import { gitResult } from "../../git/git.ts";
import type { RunContext } from "../run-context.ts";

/**
 * Removes a stale `index.lock` from the maker's and the gates' worktrees and returns the paths it
 * removed. Only a lock in the worktree's own administrative folder is touched: one whose `gitdir`
 * file points back at that worktree (a `.git` file the maker redirected cannot make it delete the
 * user's own lock). Never throws.
 */
export async function clearStaleIndexLocks(context: RunContext): Promise<string[]> {
  const cleared: string[] = [];
  for (const worktree of [context.makerWorktree, context.gateWorktree]) {
    const lock = await ownIndexLock(worktree).catch(() => undefined);
    if (!lock) continue;
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
  // A linked worktree's administrative folder names the worktree's .git file in `gitdir`; a separate
  // clone's lock sits in the worktree's own .git folder.
  if (resolve(administrative) === resolve(worktree, ".git")) return lock;
  const pointsBack = (await readFile(join(administrative, "gitdir"), "utf8").catch(() => "")).trim();
  return resolve(pointsBack) === resolve(worktree, ".git") ? lock : undefined;
}
