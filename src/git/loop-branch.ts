/**
 * The loop's branch in the user's repository, which the loop owns: created at the base, moved only by
 * loopwright (to each commit it makes, and to the verified commit at the end), whatever the maker does
 * with branches in its own checkout.
 */

import { type CommitRequest, commitTree } from "./commits.ts";
import { git, gitResult } from "./git.ts";
import { readBranchFile } from "./ref-files.ts";

/**
 * The commit `refs/heads/<branch>` points at, or undefined when the branch does not exist. Read from the
 * ref's file when it is one (see `readBranchFile`), else asked of git.
 */
export async function branchTip(root: string, branch: string): Promise<string | undefined> {
  const fromFile = await readBranchFile(root, branch);
  if (fromFile !== undefined) {
    know(root, branch, fromFile);
    return fromFile;
  }
  const result = await gitResult(
    ["rev-parse", "--verify", "--quiet", `refs/heads/${branch}^{commit}`],
    root,
    {
      trim: true,
    },
  );
  const tip = result.code === 0 && result.stdout !== "" ? result.stdout : undefined;
  know(root, branch, tip);
  return tip;
}

/**
 * The tip this process last read (`branchTip`) or set (`ensureBranch`, `moveBranch`) for the branch,
 * without asking git; undefined when it has none. Only loopwright moves a loop's branch, and each of
 * its moves names the tip it expects (`moveBranch`), so a tip another writer moved since makes that
 * move fail rather than lose a commit. A new process (a resumed loop) knows nothing and reads.
 */
export function knownBranchTip(root: string, branch: string): string | undefined {
  return knownTips.get(tipKey(root, branch));
}

const knownTips = new Map<string, string>();
const maximumKnownTips = 10_000;

function tipKey(root: string, branch: string): string {
  return `${root}\0${branch}`;
}

function know(root: string, branch: string, tip: string | undefined): void {
  const key = tipKey(root, branch);
  knownTips.delete(key);
  if (tip === undefined) return;
  if (knownTips.size >= maximumKnownTips) knownTips.clear();
  knownTips.set(key, tip);
}

/** Creates `refs/heads/<branch>` at `sha` unless it exists; returns its tip either way. */
export async function ensureBranch(root: string, branch: string, sha: string): Promise<string> {
  // Created in one git process on a loop's first run (the common case); when the branch exists, the
  // update refuses (the empty old value means "must not exist") and the tip is read.
  const created = await gitResult(
    ["update-ref", "-m", "loopwright: create the loop branch", `refs/heads/${branch}`, sha, ""],
    root,
  );
  if (created.code === 0) {
    know(root, branch, sha);
    return sha;
  }
  const tip = await branchTip(root, branch);
  if (tip) return tip;
  await git(
    ["update-ref", "-m", "loopwright: create the loop branch", `refs/heads/${branch}`, sha, ""],
    root,
  );
  know(root, branch, sha);
  return sha;
}

/** The reflog message of every move of a loop's branch. */
const moveMessage = "loopwright: move the loop branch";

/**
 * Moves `refs/heads/<branch>` to `sha`. With `expected`, only if the branch is still there (another
 * writer makes this throw rather than lose its commit).
 */
export async function moveBranch(
  root: string,
  branch: string,
  sha: string,
  expected?: string,
): Promise<void> {
  const args = ["update-ref", "-m", moveMessage, `refs/heads/${branch}`, sha];
  // Whatever happens, what was known is no longer sure until the move is done.
  know(root, branch, undefined);
  await git(expected ? [...args, expected] : args, root);
  know(root, branch, sha);
}

/**
 * Commits `tree` on `parent` (see `commitTree`) and moves `refs/heads/<branch>` from `parent` to the
 * commit, in one process; returns the commit. A branch no longer at `parent` makes this throw.
 */
export async function commitOntoBranch(
  root: string,
  branch: string,
  tree: string,
  parent: string,
  request: CommitRequest,
): Promise<string> {
  know(root, branch, undefined);
  const sha = await commitTree(root, tree, parent, request, {
    moveRef: { ref: `refs/heads/${branch}`, message: moveMessage },
  });
  know(root, branch, sha);
  return sha;
}

/** Stores `sha` under a full ref name loopwright owns (`refs/loopwright/...`). */
export async function storeRef(root: string, ref: string, sha: string): Promise<void> {
  if (!ref.startsWith("refs/loopwright/"))
    throw new Error(`storeRef writes only refs/loopwright/, got '${ref}'`);
  await git(["update-ref", "-m", "loopwright: preserve work", ref, sha], root);
}

/**
 * The worktree of the user's repository (their checkout, or a linked worktree) that has `branch`
 * checked out, if any: loopwright moves its branch with `update-ref`, which would leave that checkout's
 * files out of step with its branch.
 */
export async function checkedOutAt(root: string, branch: string): Promise<string | undefined> {
  const listing = await git(["worktree", "list", "--porcelain"], root);
  for (const entry of listing.split("\n\n")) {
    const lines = entry.split("\n");
    if (!lines.includes(`branch refs/heads/${branch}`)) continue;
    return lines.find((line) => line.startsWith("worktree "))?.slice("worktree ".length) ?? root;
  }
  return undefined;
}
