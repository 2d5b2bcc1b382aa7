/**
 * A disposable worktree for a read-only turn (verifier, replanner): created at a SHA, and after the turn
 * the files the turn wrote there are listed (for the record) and the worktree is thrown away.
 */
import { git } from "../../git/git.ts";
import { checkoutDetached, ensureWorktree, removeWorktree } from "../../git/worktrees.ts";
import type { RunContext } from "../run-context.ts";

export async function withScratchWorktree<T>(
  context: RunContext,
  label: string,
  sha: string,
  turn: (path: string) => Promise<T>,
): Promise<{ result: T; wroteFiles: string[] }> {
  const path = context.layout.scratchWorktree(context.loop.id, label);
  await ensureWorktree(context.loop.repoRoot, path, { detached: sha });
  await checkoutDetached(path, sha);
  try {
    const result = await turn(path);
    const status = await git(["status", "--porcelain", "--untracked-files=all"], path);
    const wroteFiles = status
      .split("\n")
      .filter(Boolean)
      .map((line) => line.slice(3));
    return { result, wroteFiles };
  } finally {
    await removeWorktree(context.loop.repoRoot, path);
  }
}
