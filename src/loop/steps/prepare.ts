/**
 * Prepare: the loop's own checkouts, outside the user's checkout and out of reach of its `.git` (see
 * loop-repository.ts). The maker's on the loop branch (created at the base, or where an earlier run
 * left it), the gates' detached at the base; the spec's setup commands run in each when created.
 */
import { join } from "node:path";
import { engineNotes } from "../../engines/engine-notes.ts";
import { treeOf } from "../../git/commits.ts";
import { checkedOutAt, ensureBranch } from "../../git/loop-branch.ts";
import { checkOut } from "../../git/loop-repository.ts";
import { branchHolderFromFiles } from "../../git/worktree-heads.ts";
import { runCommand } from "../../process/run-command.ts";
import type { RunContext } from "../run-context.ts";
import {
  gatesIndex,
  handPreparedCheckouts,
  handPreparedMakerCheckout,
  loopRepositoryOf,
  makerIndex,
} from "./loop-git.ts";

export async function prepare(context: RunContext): Promise<void> {
  const state = context.state();
  const { repoRoot } = context.loop;
  const baseSha = state.baseSha;
  if (!baseSha) throw new Error("the loop has no base commit recorded");
  const branch = state.spec.branch;
  // The next maker turn snapshots its checkout, starting from the base commit's tree (a loop's branch
  // stays there until a turn changes something): asked now, unawaited (and kept), so that it is known by
  // then. A loop's first run with no setup needs it not: that turn takes the checkout as made below
  // (`handPreparedMakerCheckout`).
  if (state.spec.setup.length > 0 || state.iterations.length > 0) treeOf(repoRoot, baseSha).catch(() => {});
  // The loop's own repository is made side by side with the check that nobody holds the branch. The
  // branch is made only after that check: a branch checked out elsewhere may be unborn (an orphan
  // worktree), and creating it would give that worktree's HEAD a commit before the refusal.
  const repositoryMade = loopRepositoryOf(context);
  repositoryMade.catch(() => {});
  // The gates' checkout, detached at the base, needs no branch: it is written as soon as the loop's
  // repository exists, while the branch is checked and made (git processes side by side, not in a row).
  const gatesCheckedOut = repositoryMade.then((repository) =>
    checkOut(repository, context.gateWorktree, gatesIndex, baseSha, { detached: true }),
  );
  gatesCheckedOut.catch(() => {});
  // Before its first iteration a loop's branch is made at the base (or found there): the maker's
  // checkout is written at the base as soon as the loop's repository exists too, and written again
  // below in the rare case the branch turns out to be elsewhere (made by someone else meanwhile).
  const makerAtBase =
    state.iterations.length === 0
      ? repositoryMade.then((repository) =>
          checkOut(repository, context.makerWorktree, makerIndex, baseSha, { branch }),
        )
      : undefined;
  makerAtBase?.catch(() => {});
  // Nothing of this step may still be writing once it has failed.
  const failed = async (error: unknown): Promise<never> => {
    await Promise.allSettled([gatesCheckedOut, makerAtBase]);
    throw error;
  };
  // Read from git's files in the usual case (no process), else asked of git.
  const fromFiles = branchHolderFromFiles(repoRoot, branch);
  const holder = fromFiles ? fromFiles.holder : await checkedOutAt(repoRoot, branch).catch(failed);
  if (holder) {
    await failed(
      new Error(
        `the loop's branch ${branch} is checked out in ${holder}; loopwright moves it while the loop runs, so switch that checkout to another branch first`,
      ),
    );
  }
  const [repository, tip] = await Promise.all([
    repositoryMade,
    ensureBranch(repoRoot, branch, baseSha),
  ]).catch(failed);
  // Resolves true when the maker's checkout was created from nothing at the base.
  const makerCheckedOut = (async () => {
    // Written at the base above: done, unless the branch is elsewhere or that write failed.
    const atBase = await makerAtBase?.then(
      (created) => ({ created }),
      () => undefined,
    );
    if (atBase && tip === baseSha) return atBase.created;
    await checkOut(repository, context.makerWorktree, makerIndex, tip, { branch });
    return false;
  })();
  const [makerCreated, gatesCreated] = await Promise.all([makerCheckedOut, gatesCheckedOut]);
  for (const worktree of [context.makerWorktree, context.gateWorktree]) await runSetup(context, worktree);
  await context.append("engines_resolved", engineNotes(state.spec));
  await context.append("loop_prepared", {
    makerWorktree: context.makerWorktree,
    gateWorktree: context.gateWorktree,
    baseSha,
  });
  // The gates' checkout, made just now from nothing and with no setup run in it, holds exactly the base
  // commit's files: the base gates that come next need not check it out again.
  if (gatesCreated && state.spec.setup.length === 0)
    handPreparedCheckouts(context, new Map([[context.gateWorktree, baseSha]]));
  // So does the maker's, on the loop's branch at the base, with a fresh `.git`: its first turn need not
  // snapshot it (nothing of an earlier turn can be there) nor write it again.
  if (makerCreated && state.spec.setup.length === 0) handPreparedMakerCheckout(context, baseSha);
}

/** Runs the spec's setup commands in a worktree; a failing one is an error that names its log. */
export async function runSetup(context: RunContext, worktree: string): Promise<void> {
  const label = worktree === context.makerWorktree ? "maker" : "gates";
  for (const [index, command] of context.state().spec.setup.entries()) {
    const logPath = join(context.layout.loopDirectory(context.loop.id), "setup", `${label}-${index + 1}.log`);
    const outcome = await runCommand({
      command,
      cwd: worktree,
      timeoutMs: 30 * 60_000,
      signal: context.cancelSignal,
      logPath,
      logHeader: `$ ${command}\n# in ${worktree}\n`,
      redact: context.redact,
      runId: context.runId,
      stepId: `setup-${label}-${index + 1}`,
    });
    await context.append("setup_ran", {
      worktree,
      command,
      exitCode: outcome.exitCode,
      durationMs: Math.round(outcome.durationMs),
      logPath,
    });
    if (outcome.exitCode !== 0) {
      throw new Error(`setup command \`${command}\` failed (exit ${outcome.exitCode}); see ${logPath}`);
    }
  }
}
