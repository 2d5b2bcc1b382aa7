/**
 * The loop's branch in the user's repository, which the loop owns: created at the base, moved only by
 * loopwright (to each commit it makes, and to the verified commit at the end), whatever the maker does
 * with branches in its own checkout.
 */

import { git, gitResult } from "./git.ts";

/** The commit `refs/heads/<branch>` points at, or undefined when the branch does not exist. */
export async function branchTip(root: string, branch: string): Promise<string | undefined> {
  const result = await gitResult(
    ["rev-parse", "--verify", "--quiet", `refs/heads/${branch}^{commit}`],
    root,
    {
      trim: true,
    },
  );
  return result.code === 0 && result.stdout !== "" ? result.stdout : undefined;
}

/** Creates `refs/heads/<branch>` at `sha` unless it exists; returns its tip either way. */
export async function ensureBranch(root: string, branch: string, sha: string): Promise<string> {
  // Created in one git process on a loop's first run (the common case); when the branch exists, the
  // update refuses (the empty old value means "must not exist") and the tip is read.
  const created = await gitResult(
    ["update-ref", "-m", "loopwright: create the loop branch", `refs/heads/${branch}`, sha, ""],
    root,
  );
  if (created.code === 0) return sha;
  const tip = await branchTip(root, branch);
  if (tip) return tip;
  await git(
    ["update-ref", "-m", "loopwright: create the loop branch", `refs/heads/${branch}`, sha, ""],
    root,
  );
  return sha;
}

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
  const args = ["update-ref", "-m", "loopwright: move the loop branch", `refs/heads/${branch}`, sha];
  await git(expected ? [...args, expected] : args, root);
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
