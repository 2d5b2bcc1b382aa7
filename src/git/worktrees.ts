/**
 * loopwright's own worktrees (maker, gates, scratch). They live in the state folder, outside the user's
 * checkout; nothing here touches the user's working tree, index or current branch.
 */

import { lstat, mkdir, readdir, realpath, rm } from "node:fs/promises";
import { basename, dirname, isAbsolute, join, relative, resolve, sep } from "node:path";
import { UsageError } from "../errors.ts";
import { realpathSync } from "../files/node-fs.ts";
import { firstErrorLine, GitError, git, gitResult } from "./git.ts";
import { branchExists } from "./repository.ts";

/**
 * What a worktree checks out: a new branch created at a SHA, an existing local branch, or a detached
 * SHA (gate and scratch worktrees).
 */
export type WorktreeTarget =
  | { newBranch: string; from: string }
  | { existingBranch: string }
  | { detached: string };

/**
 * Adds a worktree of the repository at `root` at `path` (parent folders are created). Throws
 * `UsageError` when `path` is inside the checkout, when an existing branch does not exist or is already
 * checked out in another worktree; `GitError` for other git failures (a new branch that already exists,
 * a non-empty folder at `path`).
 */
export async function addWorktree(root: string, path: string, target: WorktreeTarget): Promise<void> {
  await assertOutsideCheckout(root, path);
  await mkdir(dirname(resolve(path)), { recursive: true });
  let args: string[];
  if ("newBranch" in target) {
    args = ["worktree", "add", "-b", target.newBranch, path, target.from];
  } else if ("existingBranch" in target) {
    if (!(await branchExists(root, target.existingBranch))) {
      throw new UsageError(`unknown branch '${target.existingBranch}' in ${root}`);
    }
    args = ["worktree", "add", path, target.existingBranch];
  } else {
    args = ["worktree", "add", "--detach", path, target.detached];
  }
  try {
    await git([...args], root);
  } catch (error) {
    if (error instanceof GitError && /already (checked out|used by worktree) at/.test(error.stderr)) {
      throw new UsageError(`cannot create the worktree ${path}: ${firstErrorLine(error.stderr)}`);
    }
    throw error;
  }
}

/**
 * Makes sure a usable worktree for `target` exists at `path`, and is idempotent. A valid worktree of
 * this repository is reused as it is (uncommitted changes kept) when it is on the target branch; a
 * detached target is moved to its SHA with `checkoutDetached`. A folder that was deleted, pruned, left
 * broken, belongs to another repository or is on another branch is recreated (uncommitted changes in
 * it are lost: preserve them first). A `newBranch` that already exists (an earlier run) is checked out
 * as it is, not reset to `from`. Throws `UsageError` when `path` holds something that is not a
 * worktree (it is never deleted), or is inside the checkout.
 */
export async function ensureWorktree(root: string, path: string, target: WorktreeTarget): Promise<void> {
  await assertOutsideCheckout(root, path);
  let current = await inspectWorktree(root, path);
  if (current.exists && !current.valid) {
    // `repair` fixes a worktree whose folder or repository moved; anything else is recreated below.
    await gitResult(["worktree", "repair", path], root);
    current = await inspectWorktree(root, path);
  }
  if (current.valid) {
    if ("detached" in target) return checkoutDetached(path, target.detached);
    const wanted = "newBranch" in target ? target.newBranch : target.existingBranch;
    if (current.branch === wanted) return;
  }
  // Clears a stale registration too (a folder deleted by hand), without pruning anyone else's.
  await removeWorktree(root, path);
  let effective = target;
  if ("newBranch" in target && (await branchExists(root, target.newBranch))) {
    effective = { existingBranch: target.newBranch };
  }
  await addWorktree(root, path, effective);
}

/**
 * Removes the worktree at `path` even with uncommitted changes or a lock, and its registration even
 * when the folder is already gone (other stale worktrees are pruned only if git cannot remove this
 * one directly). Never deletes a branch. A folder git no longer knows is deleted only when it is
 * empty or is a worktree folder (has a `.git` file); otherwise `UsageError`. A missing folder is fine.
 */
export async function removeWorktree(root: string, path: string): Promise<void> {
  await assertOutsideCheckout(root, path);
  const removed = await gitResult(["worktree", "remove", "--force", "--force", path], root);
  await discardFolder(path);
  if (removed.code !== 0 && (await isRegistered(root, path))) await git(["worktree", "prune"], root);
}

/**
 * Moves the worktree's HEAD (and its branch, if any) to `sha` and makes the files match it: tracked
 * changes are discarded and untracked files removed, while IGNORED files (node_modules, .env) are kept.
 */
export async function resetWorktree(path: string, sha: string): Promise<void> {
  await git(["reset", "--hard", "--quiet", sha], path);
  await git(["clean", "-ffd", "--quiet"], path);
}

/**
 * Detaches the worktree's HEAD at `sha` (for the gate worktree) and cleans it like `resetWorktree`:
 * tracked changes discarded, untracked files removed, ignored files kept. No branch moves.
 */
export async function checkoutDetached(path: string, sha: string): Promise<void> {
  await git(["checkout", "--quiet", "--force", "--detach", sha], path);
  await git(["clean", "-ffd", "--quiet"], path);
}

interface WorktreeState {
  exists: boolean;
  /** A worktree of this repository whose top level is exactly `path`. */
  valid: boolean;
  /** The checked-out branch (short name), when on one. */
  branch?: string;
}

async function inspectWorktree(root: string, path: string): Promise<WorktreeState> {
  const exists = await lstat(path).then(
    (stats) => stats.isDirectory(),
    () => false,
  );
  if (!exists) return { exists, valid: false };
  const inside = await gitResult(["rev-parse", "--show-toplevel", "--git-common-dir"], path, { trim: true });
  if (inside.code !== 0) return { exists, valid: false };
  const [topLevel, commonDirectory] = inside.stdout.split("\n");
  const ours = await git(["rev-parse", "--git-common-dir"], root, { trim: true });
  const valid =
    (await realpath(topLevel)) === (await realpath(path)) &&
    (await realpath(resolve(path, commonDirectory))) === (await realpath(resolve(root, ours)));
  if (!valid) return { exists, valid };
  const branch = await gitResult(["symbolic-ref", "--quiet", "--short", "HEAD"], path, { trim: true });
  return { exists, valid, branch: branch.code === 0 ? branch.stdout : undefined };
}

async function isRegistered(root: string, path: string): Promise<boolean> {
  const wanted = await canonicalPath(path);
  const listing = await git(["worktree", "list", "--porcelain"], root);
  for (const line of listing.split("\n")) {
    if (line.startsWith("worktree ") && (await canonicalPath(line.slice(9))) === wanted) return true;
  }
  return false;
}

/** Deletes a leftover worktree folder, refusing anything that does not look like one. */
async function discardFolder(path: string): Promise<void> {
  const entries = await readdir(path).catch(() => undefined);
  if (entries === undefined) return;
  if (entries.length > 0) {
    const link = await lstat(join(path, ".git")).catch(() => undefined);
    if (!link?.isFile()) {
      throw new UsageError(
        `${path} exists and is not a loopwright worktree; move it away or choose another state folder`,
      );
    }
  }
  await rm(path, { recursive: true, force: true });
}

/** loopwright's worktrees and checkouts must live outside the user's checkout, and never contain it. */
export async function assertOutsideCheckout(root: string, path: string): Promise<void> {
  const checkout = canonicalPath(root);
  const target = canonicalPath(path);
  if (isWithin(target, checkout) || isWithin(checkout, target)) {
    throw new UsageError(
      `worktree folder ${path} overlaps the checkout ${root}; loopwright keeps its worktrees outside the checkout (set LOOPWRIGHT_HOME elsewhere)`,
    );
  }
}

function isWithin(child: string, parent: string): boolean {
  const path = relative(parent, child);
  return path === "" || (path !== ".." && !path.startsWith(`..${sep}`) && !isAbsolute(path));
}

/**
 * The real path of the deepest existing ancestor, with the rest appended (the path may not exist yet).
 * Synchronous (realpath(3), as the asynchronous call runs it): a few microseconds each, where a round
 * trip through libuv's thread pool per ancestor (three for a checkout not made yet) cost milliseconds on
 * a busy machine, before each checkout of a run's first step is written.
 */
function canonicalPath(path: string): string {
  const absolute = resolve(path);
  try {
    return realpathSync.native(absolute);
  } catch {
    const parent = dirname(absolute);
    if (parent === absolute) return absolute;
    return join(canonicalPath(parent), basename(absolute));
  }
}
