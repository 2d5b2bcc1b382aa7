/**
 * What changed between two commits: the file list (for scope screening), the unified diff (for the
 * verifier), and a normalized diff hash (for no-progress fingerprints).
 */

import { createHash } from "node:crypto";
import { treeOf } from "./commits.ts";
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

/** How every diff loopwright reads is printed, whatever the user's diff settings. */
const patchArguments = [
  "-r",
  "-p",
  "--no-color",
  "--no-ext-diff",
  "--no-textconv",
  "--src-prefix=a/",
  "--dst-prefix=b/",
  "--find-renames",
  "--diff-algorithm=histogram",
  "--unified=3",
];

/**
 * The unified diff from `from` to `to`, independent of the user's diff settings: no color, no external
 * diff drivers or text conversion, `a/` and `b/` prefixes, renames detected, paths unquoted. Printed by
 * the plumbing `diff-tree`, which reads none of the porcelain's diff configuration.
 */
export async function diffText(worktree: string, from: string, to: string): Promise<string> {
  const known = knownDiffs.get(diffKey(worktree, from, to));
  if (known !== undefined) return known;
  return git(["-c", "core.quotePath=false", "diff-tree", ...patchArguments, from, to, "--"], worktree);
}

/**
 * The diffs (as `diffText` prints them) between several pairs of commits, named by full SHAs, in one git
 * process: `diff-tree --stdin` prints each pair's diff after a line naming the pair's two trees. The
 * answers are remembered (a few, none huge: commits never change), so `diffText` of one of these pairs
 * runs no git.
 */
export async function diffTexts(
  root: string,
  pairs: readonly (readonly [from: string, to: string])[],
): Promise<string[]> {
  const trees = await Promise.all(
    pairs.map(async ([from, to]) => [await treeOf(root, from), await treeOf(root, to)] as const),
  );
  const texts = await treeDiffTexts(root, trees);
  for (const [index, [from, to]] of pairs.entries()) rememberDiff(root, from, to, texts[index]);
  return texts;
}

/**
 * The diffs between pairs of trees, in one git process, each exactly what `diffText` prints for two
 * commits holding those trees (it prints the commits' trees). For a commit still being made: its tree
 * is known first, and `rememberDiff` files the answer under the commit once there is one.
 */
export async function treeDiffTexts(
  root: string,
  pairs: readonly (readonly [fromTree: string, toTree: string])[],
): Promise<string[]> {
  const trees = pairs.map(([from, to]) => `${from} ${to}\n`);
  const output = await git(["-c", "core.quotePath=false", "diff-tree", "--stdin", ...patchArguments], root, {
    input: trees.join(""),
  });
  // A header is a whole line of two object ids; no line of a patch is (each starts with a sign or a word).
  const texts: string[] = [];
  let position = 0;
  for (const [index, header] of trees.entries()) {
    if (!output.startsWith(header, position)) {
      throw new Error(`git diff-tree --stdin printed no header '${header.trim()}' where expected`);
    }
    const start = position + header.length;
    const next = trees[index + 1];
    const end = next === undefined ? output.length : output.indexOf(`\n${next}`, start - 1) + 1;
    if (end <= 0) throw new Error(`git diff-tree --stdin printed no header '${next?.trim()}'`);
    texts.push(output.slice(start, end));
    position = end;
  }
  return texts;
}

/** Diffs of full commit SHAs already printed, by repository, from and to; few and bounded in size. */
const knownDiffs = new Map<string, string>();
const maximumKnownDiffs = 8;
const maximumKnownDiffBytes = 8 * 1024 * 1024;
const fullSha = /^(?:[0-9a-f]{40}|[0-9a-f]{64})$/;

function diffKey(root: string, from: string, to: string): string {
  return `${root}\0${from}\0${to}`;
}

/** Files `text` as the diff of commits `from` → `to` (as `diffText` prints it), so asking again runs no git. */
export function rememberDiff(root: string, from: string, to: string, text: string): void {
  if (!fullSha.test(from) || !fullSha.test(to) || text.length > maximumKnownDiffBytes) return;
  const key = diffKey(root, from, to);
  knownDiffs.delete(key);
  knownDiffs.set(key, text);
  for (const oldest of knownDiffs.keys()) {
    if (knownDiffs.size <= maximumKnownDiffs) break;
    knownDiffs.delete(oldest);
  }
}

/**
 * The sha256 (hex) of `normalizeDiff(diffText(from, to))`: the same for two changes that differ only in
 * line numbers, whitespace or comment-only lines. An empty diff always hashes to the sha256 of "".
 */
export async function normalizedDiffHash(worktree: string, from: string, to: string): Promise<string> {
  const normalized = normalizeDiff(await diffText(worktree, from, to));
  return createHash("sha256").update(normalized).digest("hex");
}
