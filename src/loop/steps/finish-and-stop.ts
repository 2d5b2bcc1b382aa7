/**
 * The end of a loop. `finish` leaves the verified commit on the loop's branch and pushes it when the
 * repository has a remote (a failed push is recorded, not fatal). `stop` records the stop reason and
 * removes the loop's worktrees (the branch stays), so the user can check the branch out anywhere.
 */

import { pushBranch } from "../../git/push.ts";
import { defaultRemote } from "../../git/repository.ts";
import { removeWorktree } from "../../git/worktrees.ts";
import type { StopReason } from "../events.ts";
import type { RunContext } from "../run-context.ts";
import { secretsInHistory } from "./scrub-secrets.ts";

export async function finishLoop(context: RunContext): Promise<void> {
  const state = context.state();
  const sha = state.iterations.at(-1)?.commit?.sha ?? state.baseSha ?? "";
  const branch = state.spec.branch;
  const action = state.spec.finish.action;
  if (action === "none") {
    await context.append("loop_finished", { action, branch, sha, pushed: false });
    return;
  }
  const remote = await defaultRemote(context.loop.repoRoot);
  if (!remote) {
    await context.append("loop_finished", { action, branch, sha, pushed: false });
    return;
  }
  // The last line of defence: whatever reached the branch, a known secret value is never pushed.
  const leaked = await secretsInHistory(
    context.loop.repoRoot,
    state.baseSha ?? sha,
    sha,
    context.redact.secrets ?? [],
  );
  if (leaked.length > 0) {
    await context.append("loop_finished", {
      action,
      branch,
      sha,
      pushed: false,
      remote,
      error: `refused to push: the commits hold the value of ${leaked.join(", ")}, a secret loopwright holds`,
    });
    return;
  }
  const push = await pushBranch(context.loop.repoRoot, remote, branch);
  await context.append("loop_finished", {
    action,
    branch,
    sha,
    pushed: push.pushed,
    remote,
    error: push.error,
  });
}

export async function stopLoop(context: RunContext, reason: StopReason, message: string): Promise<void> {
  await context.append("loop_stopped", { reason, message });
  await removeLoopWorktrees(context);
}

/** Removes the maker's and the gates' worktrees (the branch stays); idempotent. */
export async function removeLoopWorktrees(context: RunContext): Promise<void> {
  for (const worktree of [context.makerWorktree, context.gateWorktree]) {
    await removeWorktree(context.loop.repoRoot, worktree).catch(() => {});
  }
}
