/**
 * The end of a loop. `finish` leaves the verified commit on the loop's branch and pushes it when the
 * repository has a remote (a failed push is recorded, not fatal). `stop` records the stop reason and
 * removes the loop's checkouts (the branch stays), so the user can check the branch out anywhere.
 */

import { rm } from "node:fs/promises";
import { join } from "node:path";
import type { StopReason } from "../../core/events.ts";
import { git, gitResult } from "../../git/git.ts";
import { branchTip, moveBranch } from "../../git/loop-branch.ts";
import { pushBranch } from "../../git/push.ts";
import { defaultRemote } from "../../git/repository.ts";
import type { RunContext } from "../run-context.ts";
import { strategyOf } from "../strategies/strategy.ts";
import { secretsInHistory } from "./scrub-secrets.ts";

export async function finishLoop(context: RunContext): Promise<void> {
  const state = context.state();
  // The verified commit; a strategy may end elsewhere (tasks: its tick; metric: the best kept commit).
  const sha = strategyOf(state.spec).finalCommit(state) ?? "";
  const branch = state.spec.branch;
  const action = state.spec.finish.action;
  // The loop owns its branch: whatever happened to it, it ends on the verified commit.
  if (sha !== "" && (await branchTip(context.loop.repoRoot, branch)) !== sha) {
    await moveBranch(context.loop.repoRoot, branch, sha);
  }
  if (action === "none") {
    await context.append("loop_finished", { action, branch, sha, pushed: false });
    return;
  }
  // A pull request only for a change: a verified tree equal to the base's opens nothing.
  if (
    action === "pull-request" &&
    state.baseSha &&
    (await sameTree(context.loop.repoRoot, state.baseSha, sha))
  ) {
    await context.append("loop_finished", { action, branch, sha, pushed: false, unchanged: true });
    return;
  }
  const remote = await defaultRemote(context.loop.repoRoot);
  if (!remote) {
    const error =
      action === "pull-request" ? "no remote to push to: add one (git remote add origin <url>)" : undefined;
    await context.append("loop_finished", { action, branch, sha, pushed: false, error });
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

async function sameTree(root: string, first: string, second: string): Promise<boolean> {
  const trees = await gitResult(["rev-parse", `${first}^{tree}`, `${second}^{tree}`], root, { trim: true });
  const [a, b] = trees.stdout.split("\n");
  return trees.code === 0 && a === b;
}

export async function stopLoop(context: RunContext, reason: StopReason, message: string): Promise<void> {
  await context.append("loop_stopped", { reason, message });
  await removeLoopWorktrees(context);
}

/** Removes the maker's and the gates' checkouts and the loop's private git (the branch stays); idempotent. */
export async function removeLoopWorktrees(context: RunContext): Promise<void> {
  const loopFolder = context.layout.loopDirectory(context.loop.id);
  for (const folder of [context.makerWorktree, context.gateWorktree, join(loopFolder, "git")]) {
    await rm(folder, { recursive: true, force: true }).catch(() => {});
  }
  // A loop started by an older loopwright had linked worktrees: drop their (now stale) registrations.
  const listing = await git(["worktree", "list", "--porcelain"], context.loop.repoRoot).catch(() => "");
  if (listing.split("\n").some((line) => line.startsWith(`worktree ${loopFolder}/`))) {
    await git(["worktree", "prune"], context.loop.repoRoot).catch(() => {});
  }
}
