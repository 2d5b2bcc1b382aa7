/**
 * Commits in loopwright's worktrees: committing whatever the maker left, reading trailers back, and
 * preserving interrupted work without touching the worktree.
 */

import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { git, gitSequence, keptOutput } from "./git.ts";
import { identityArguments } from "./identity.ts";

/** A commit to make: the message verbatim, plus `Key: value` trailers appended as its last paragraph. */
export interface CommitRequest {
  message: string;
  /** Keys are letters, digits and dashes (`Loopwright-Iteration`); values are one line. */
  trailers?: Record<string, string>;
}

/** What `commitAll` did. */
export interface CommitOutcome {
  /** The new commit, or the unchanged HEAD when nothing changed. */
  sha: string;
  committed: boolean;
  /** Paths the commit changed (both sides of a rename), sorted; empty when nothing was committed. */
  files: string[];
}

/** The full SHA of `path`'s HEAD commit. Throws `GitError` when there is none. */
export async function headSha(path: string): Promise<string> {
  return git(["rev-parse", "--verify", "HEAD^{commit}"], path, { trim: true });
}

/**
 * Stages everything in the worktree (`add -A`: new, modified and deleted files; ignored files stay out)
 * and commits it on the current HEAD with `--no-verify` and no hooks. Uses the identity
 * `loopwright <loopwright@localhost>` only for what git has not configured, and never writes config.
 * When nothing changed, makes no commit and returns the current HEAD with `committed: false`.
 * Throws (programmer error) for an empty message or a malformed trailer.
 */
export async function commitAll(worktree: string, request: CommitRequest): Promise<CommitOutcome> {
  const message = messageWithTrailers(request);
  await git(["add", "--all"], worktree);
  const staged = await git(["diff", "--cached", "--name-only", "-z", "--no-renames"], worktree);
  const files = [...new Set(staged.split("\0").filter((file) => file !== ""))].sort();
  if (files.length === 0) return { sha: await headSha(worktree), committed: false, files };
  const identity = await identityArguments(worktree);
  await git([...identity, "commit", "--no-verify", "--quiet", "--cleanup=whitespace", "--file=-"], worktree, {
    input: message,
  });
  return { sha: await headSha(worktree), committed: true, files };
}

/**
 * Makes a commit of `tree` on `parent` in the repository at `root` (no hooks, no signing, nothing
 * staged or checked out) and returns its SHA; the caller moves a ref to it, or `options.moveRef` names
 * one to move there from `parent` in the same process (compare-and-swap: a ref that no longer points at
 * `parent` makes this throw, the commit left unreferenced).
 */
export async function commitTree(
  root: string,
  tree: string,
  parent: string,
  request: CommitRequest,
  options: { moveRef?: { ref: string; message: string } } = {},
): Promise<string> {
  const identity = await identityArguments(root);
  const commit = [...identity, "commit-tree", tree, "-p", parent, "-F", "-"];
  const input = messageWithTrailers(request);
  const move = options.moveRef;
  const sha = move
    ? await gitSequence([commit, ["update-ref", "-m", move.message, move.ref, keptOutput, parent]], root, {
        input,
        trim: true,
        resultOf: 0,
      })
    : await git(commit, root, { input, trim: true });
  // The next iteration starts from this commit and asks for its tree: known already.
  rememberTree(root, sha, tree);
  return sha;
}

/** The tree of commit `sha`. */
export async function treeOf(root: string, sha: string): Promise<string> {
  // A full commit SHA names its tree forever: asked once per process and repository (every loop of a
  // repository starts from the same few commits). Names that can move (branches, HEAD) are always asked.
  if (!/^(?:[0-9a-f]{40}|[0-9a-f]{64})$/.test(sha))
    return git(["rev-parse", "--verify", `${sha}^{tree}`], root, { trim: true });
  const key = `${root}\0${sha}`;
  const known = treesOfCommits.get(key);
  if (known) return known;
  const tree = await git(["rev-parse", "--verify", `${sha}^{tree}`], root, { trim: true });
  rememberTree(root, sha, tree);
  return tree;
}

function rememberTree(root: string, sha: string, tree: string): void {
  if (treesOfCommits.size >= maximumKnownTrees) treesOfCommits.clear();
  treesOfCommits.set(`${root}\0${sha}`, tree);
}

/** Trees of full commit SHAs already asked, by repository root and SHA; bounded, then started afresh. */
const treesOfCommits = new Map<string, string>();
const maximumKnownTrees = 10_000;

/**
 * The trailers of commit `sha` (its last paragraph's `Key: value` lines, folded lines unfolded). When a
 * key repeats, the last value wins. Empty when the commit has none.
 */
export async function readTrailers(worktree: string, sha: string): Promise<Record<string, string>> {
  const text = await git(["log", "-1", "--format=%(trailers:only,unfold)", sha, "--"], worktree);
  const trailers: Record<string, string> = {};
  for (const line of text.split("\n")) {
    const colon = line.indexOf(":");
    if (colon <= 0) continue;
    trailers[line.slice(0, colon).trim()] = line.slice(colon + 1).trim();
  }
  return trailers;
}

/**
 * Snapshots the worktree's uncommitted state (tracked changes and untracked, non-ignored files) as a
 * commit whose parent is HEAD, stored under `ref` (e.g. `refs/loopwright/<loop>/interrupted-3`). The
 * worktree, its index and its branch are left exactly as they were (a temporary index is used).
 * Returns the snapshot's SHA, or undefined when there is nothing to preserve.
 */
export async function preserveWork(
  worktree: string,
  ref: string,
  message: string,
): Promise<string | undefined> {
  if (!ref.startsWith("refs/")) throw new Error(`preserveWork needs a full ref name, got '${ref}'`);
  const head = await headSha(worktree);
  const folder = await mkdtemp(join(tmpdir(), "loopwright-index-"));
  const env = { GIT_INDEX_FILE: join(folder, "index") };
  try {
    await git(["read-tree", head], worktree, { env });
    await git(["add", "--all"], worktree, { env });
    const tree = await git(["write-tree"], worktree, { env, trim: true });
    const headTree = await git(["rev-parse", `${head}^{tree}`], worktree, { trim: true });
    if (tree === headTree) return undefined;
    const identity = await identityArguments(worktree);
    const sha = await git([...identity, "commit-tree", tree, "-p", head, "-F", "-"], worktree, {
      input: message,
      trim: true,
    });
    await git(["update-ref", "-m", "loopwright: preserve interrupted work", ref, sha], worktree);
    return sha;
  } finally {
    await rm(folder, { recursive: true, force: true });
  }
}

function messageWithTrailers(request: CommitRequest): string {
  const message = request.message.trim();
  if (message === "") throw new Error("commitAll needs a non-empty message");
  const lines = Object.entries(request.trailers ?? {}).map(([key, value]) => {
    if (!/^[A-Za-z0-9][A-Za-z0-9-]*$/.test(key)) throw new Error(`invalid trailer key '${key}'`);
    if (/[\r\n]/.test(value)) throw new Error(`trailer '${key}' must be one line`);
    return `${key}: ${value}`;
  });
  return lines.length === 0 ? `${message}\n` : `${message}\n\n${lines.join("\n")}\n`;
}
