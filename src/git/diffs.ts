/**
 * What changed between two commits: the file list (for scope screening), the unified diff (for the
 * verifier), and a normalized diff hash (for no-progress fingerprints).
 */

import { createHash } from "node:crypto";
import { git } from "./git.ts";
import { normalizeDiff } from "./normalize-diff.ts";

export { normalizeDiff } from "./normalize-diff.ts";

/**
 * Paths changed from `fromSha` to `toSha`: added, modified, deleted, and both the old and the new path
 * of a rename; sorted, each once.
 */
export async function changedFiles(worktree: string, fromSha: string, toSha: string): Promise<string[]> {
  const output = await git(["diff", "--name-only", "-z", "--no-renames", fromSha, toSha, "--"], worktree);
  return [...new Set(output.split("\0").filter((file) => file !== ""))].sort();
}

/**
 * The unified diff from `from` to `to`, independent of the user's diff settings: no color, no external
 * diff drivers or text conversion, `a/` and `b/` prefixes, renames detected, paths unquoted.
 */
export async function diffText(worktree: string, from: string, to: string): Promise<string> {
  return git(
    [
      "-c",
      "core.quotePath=false",
      "diff",
      "--no-color",
      "--no-ext-diff",
      "--no-textconv",
      "--src-prefix=a/",
      "--dst-prefix=b/",
      "--find-renames",
      "--diff-algorithm=histogram",
      "--unified=3",
      from,
      to,
      "--",
    ],
    worktree,
  );
}

/**
 * The sha256 (hex) of `normalizeDiff(diffText(from, to))`: the same for two changes that differ only in
 * line numbers, whitespace or comment-only lines. An empty diff always hashes to the sha256 of "".
 */
export async function normalizedDiffHash(worktree: string, from: string, to: string): Promise<string> {
  const normalized = normalizeDiff(await diffText(worktree, from, to));
  return createHash("sha256").update(normalized).digest("hex");
}
