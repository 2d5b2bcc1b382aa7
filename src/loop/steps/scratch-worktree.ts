/**
 * A disposable worktree for a read-only turn (verifier, replanner): created at a SHA, and after the turn
 * the files the turn wrote there are listed (for the record) and the worktree is thrown away.
 */
import { changedSince, checkOut, removeCheckout } from "../../git/loop-repository.ts";
import type { RunContext } from "../run-context.ts";
import { loopRepositoryOf } from "./loop-git.ts";

export async function withScratchWorktree<T>(
  context: RunContext,
  label: string,
  sha: string,
  turn: (path: string) => Promise<T>,
): Promise<{ result: T; wroteFiles: string[] }> {
  const path = context.layout.scratchWorktree(context.loop.id, label);
  const repository = await loopRepositoryOf(context);
  const index = `scratch-${label}`;
  await checkOut(repository, path, index, sha, { detached: true });
  try {
    const result = await turn(path);
    const wroteFiles = await changedSince(repository, path, index, sha);
    return { result, wroteFiles };
  } finally {
    await removeCheckout(repository, path, index);
  }
}
