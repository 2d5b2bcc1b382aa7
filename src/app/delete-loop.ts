/**
 * Deleting a loop: its worktrees, logs, refs and record; its branch only when asked. What a dead
 * controller of the loop left running (found by its run tags) is killed first. Deletion is no event (the
 * timeline goes with the loop): the caller logs who did it.
 */
import { rm } from "node:fs/promises";
import type { Actor } from "../core/events.ts";
import { LoopBusyError } from "../errors.ts";
import { git } from "../git/git.ts";
import { removeWorktree } from "../git/worktrees.ts";
import { homeLayout } from "../paths.ts";
import { runIdVariable, sweepTaggedProcesses } from "../process/sweep.ts";
import { type AppContext, readLoop } from "./app-context.ts";
import { parseRequest } from "./parse-request.ts";
import { type ActionResult, type DeleteRequest, deleteRequestSchema } from "./schemas/action-schemas.ts";

/** Throws `LoopNotFoundError`, or `LoopBusyError` for a loop a live controller runs (nothing removed). */
export async function deleteLoop(
  context: AppContext,
  reference: string,
  _by: Actor,
  request: DeleteRequest = {},
): Promise<ActionResult & { branchDeleted: string | null }> {
  const { branch } = parseRequest(deleteRequestSchema, request);
  const { loop, state } = await readLoop(context, reference);
  const holder = await context.store.lockHolder(loop.id);
  if (holder) throw new LoopBusyError(`loop ${loop.name} is running (pid ${holder.pid}); cancel it first`);
  const runIds = new Set(state.runIds);
  if (runIds.size > 0) await sweepTaggedProcesses(runIdVariable, (value) => runIds.has(value));
  const folder = homeLayout(context.home).loopDirectory(loop.id);
  const worktrees = await git(["worktree", "list", "--porcelain"], loop.repoRoot).catch(() => "");
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
  if (branch) await git(["branch", "-D", state.spec.branch], loop.repoRoot).catch(() => {});
  await context.store.deleteLoop(loop.id);
  return {
    loopId: loop.id,
    name: loop.name,
    outcome: "deleted",
    message: `removed ${loop.name} (${loop.id})${branch ? ` and branch ${state.spec.branch}` : ""}`,
    queuePosition: null,
    branchDeleted: branch ? state.spec.branch : null,
  };
}
