/**
 * `rm <loop>`: worktrees, logs and the loop's record; its branch only with `--branch`. What a dead
 * controller of the loop left running (found by its run tags) is killed first.
 */
import { rm } from "node:fs/promises";
import { LoopBusyError } from "../../errors.ts";
import { git } from "../../git/git.ts";
import { removeWorktree } from "../../git/worktrees.ts";
import { readState } from "../../loop/timeline.ts";
import { homeLayout } from "../../paths.ts";
import { runIdVariable, sweepTaggedProcesses } from "../../process/sweep.ts";
import { findLoopOrThrow, openSession } from "../session.ts";

export async function removeCommand(reference: string, options: { branch?: boolean }): Promise<number> {
  const session = await openSession();
  try {
    const loop = await findLoopOrThrow(session.store, reference);
    const holder = await session.store.lockHolder(loop.id);
    if (holder) throw new LoopBusyError(`loop ${loop.name} is running (pid ${holder.pid}); cancel it first`);
    const { state } = await readState(session.store, loop);
    const runIds = new Set(state.runIds);
    if (runIds.size > 0) await sweepTaggedProcesses(runIdVariable, (value) => runIds.has(value));
    const layout = homeLayout(session.home);
    const worktrees = await git(["worktree", "list", "--porcelain"], loop.repoRoot).catch(() => "");
    const folder = layout.loopDirectory(loop.id);
    for (const line of worktrees.split("\n")) {
      const path = line.startsWith("worktree ") ? line.slice("worktree ".length) : "";
      if (path.startsWith(`${folder}/`)) await removeWorktree(loop.repoRoot, path).catch(() => {});
    }
    await git(["worktree", "prune"], loop.repoRoot).catch(() => {});
    await rm(folder, { recursive: true, force: true });
    const refs = await git(
      ["for-each-ref", "--format=%(refname)", `refs/loopwright/${loop.id}/`],
      loop.repoRoot,
    ).catch(() => "");
    for (const ref of refs.split("\n").filter(Boolean))
      await git(["update-ref", "-d", ref], loop.repoRoot).catch(() => {});
    if (options.branch) await git(["branch", "-D", state.spec.branch], loop.repoRoot).catch(() => {});
    await session.store.deleteLoop(loop.id);
    process.stdout.write(
      `removed ${loop.name} (${loop.id})${options.branch ? ` and branch ${state.spec.branch}` : ""}\n`,
    );
    return 0;
  } finally {
    await session.store.close();
  }
}
