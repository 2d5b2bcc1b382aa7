/**
 * The maker's turn in the loop's checkout, under the iteration's wall-clock limit. Every turn starts
 * from the iteration's start commit on the loop's branch, with a fresh `.git` (whatever an earlier turn
 * did to it is gone). A turn interrupted by a dead controller is re-run from the start commit; whatever
 * it had left is first kept under a ref, so nothing is lost. The turn's cost watchdog gets what the
 * iteration has left of its cap; with nothing left the turn does not start and ends over budget. A turn
 * that answers a review round (`reviewRound`) starts from the reviewed commit instead, with the
 * reviewer's findings as its brief, recorded on `maker_started`.
 */
import { mkdir, writeFile } from "node:fs/promises";
import { join } from "node:path";

import { createEngine } from "../../engines/registry.ts";
import { commitTree, treeOf } from "../../git/commits.ts";
import { storeRef } from "../../git/loop-branch.ts";
import {
  checkOut,
  isRealFolder,
  type LoopRepository,
  snapshotTree,
  unchangedSinceCheckOut,
} from "../../git/loop-repository.ts";
import { monotonicMs } from "../../process/monotonic-clock.ts";
import { iterationSpentUsd, nextTurnCap } from "../iteration-spending.ts";
import { makerTurnNumber } from "../review-rounds.ts";
import { buildReworkBrief } from "../rework-brief.ts";
import type { RunContext } from "../run-context.ts";
import { currentIteration } from "../state.ts";
import { buildTurnContext } from "./build-turn-context.ts";
import { loopRepositoryOf, makerIndex } from "./loop-git.ts";

export async function runMakerTurn(
  context: RunContext,
  resume: boolean,
  reviewRound?: number,
  prepared?: string,
  // The checkout's listing begun by the step before (see `handMakerListingAhead`), used in place of its own.
  listedAhead: Promise<{ listing: string } | undefined> = Promise.resolve(undefined),
): Promise<void> {
  const state = context.state();
  const iteration = currentIteration(state);
  if (!iteration) throw new Error("no iteration in progress");
  const attempt = iteration.makerAttempts + 1;
  const reviewed = iteration.reviews.find((review) => review.round === reviewRound);
  if (reviewRound !== undefined && !reviewed) throw new Error(`no review round ${reviewRound} to answer`);
  const fromSha = reviewed?.sha ?? iteration.startSha;
  const rework =
    reviewRound === undefined ? undefined : await writeReworkBrief(context, iteration.number, reviewRound);
  const brief = rework?.brief ?? iteration.brief;
  const turnNumber = makerTurnNumber(state, iteration.number, reviewRound);
  const repository = await loopRepositoryOf(context);
  const listed = await listedAhead;
  let preservedRef: string | undefined;
  let treeAsk: NodeJS.Timeout | undefined;
  if (
    prepared !== undefined &&
    prepared === fromSha &&
    !resume &&
    attempt === 1 &&
    reviewRound === undefined &&
    (await unchangedSinceCheckOut(repository, context.makerWorktree, makerIndex, fromSha, listed))
  ) {
    // The checkout `prepare` made from nothing at this commit, its files unchanged since (one listing: the
    // base gates ran meanwhile, and anything may have written there): what `snapshotAndCheckOut` would
    // find, with nothing to keep. Its `.git` is rebuilt all the same (no git runs for that). The start
    // commit's tree is asked once the turn has had a moment (the commit step compares with it), not
    // before the maker's first command.
    await checkOut(
      repository,
      context.makerWorktree,
      makerIndex,
      fromSha,
      { branch: state.spec.branch },
      { filesMatch: true, cleaned: true },
    );
    treeAsk = setTimeout(
      () => treeOf(context.loop.repoRoot, fromSha).catch(() => {}),
      treeAskDelayMs,
    ).unref();
  } else {
    preservedRef = await snapshotAndCheckOut(context, repository, fromSha, resume, listed);
  }
  await context.append("maker_started", {
    iteration: iteration.number,
    attempt,
    turnNumber,
    preservedRef,
    ...(rework ? { reviewRound, brief: rework.brief, briefPath: rework.path } : {}),
  });
  // Without a cap, what the iteration spent does not matter: the timeline is not read again for it.
  const capUsd = state.spec.budget.maxCostUsdPerIteration;
  const spentUsd =
    capUsd > 0
      ? iterationSpentUsd(
          // The iteration's own events: its turns all end after its start (not the whole timeline, each turn).
          await context.store.readEvents(context.loop.id, (iteration.startedSeq ?? 1) - 1),
          iteration.number,
        )
      : 0;
  const cap = nextTurnCap(capUsd, spentUsd, "maker");
  if (cap.exhausted) {
    await context.append("maker_ended", {
      iteration: iteration.number,
      status: "over_budget",
      account: "",
      error: cap.message,
      durationMs: 0,
      costUsd: 0,
    });
    return;
  }
  const engine = createEngine(state.spec.maker, "maker");
  const started = monotonicMs();
  const result = await engine.runTurn({
    role: "maker",
    cwd: context.makerWorktree,
    prompt: brief,
    readOnly: false,
    context: { ...buildTurnContext(state, iteration.number, "maker", context.loop.name) },
    turnNumber,
    wallClockMs: state.spec.budget.wallClockPerIteration,
    maxCostUsd: cap.maxCostUsd,
    turnDirectory: context.layout.iterationDirectory(context.loop.id, iteration.number),
    runId: context.runId,
    stepId: `maker-${iteration.number}-${attempt}${reviewRound === undefined ? "" : `-review-${reviewRound}`}`,
    signal: context.cancelSignal,
  });
  // A turn that ended before the tree was asked leaves the asking to the commit step.
  clearTimeout(treeAsk);
  await context.append("maker_ended", {
    iteration: iteration.number,
    status: result.status,
    account: context.redact(result.text),
    exitCode: result.exitCode,
    error: result.error ? context.redact(result.error) : undefined,
    durationMs: Math.round(monotonicMs() - started),
    costUsd: result.costUsd,
    usage: result.usage,
  });
}

/** How long into the maker's turn the start commit's tree is asked, when `prepare` handed the checkout. */
const treeAskDelayMs = 1000;

/**
 * Makes the maker's checkout hold `fromSha`'s files with a fresh `.git`, first keeping whatever another
 * turn left there (files that are not that commit's) under a ref; returns that ref, if any. `listed`: the
 * checkout's listing begun by the step before (see `handMakerListingAhead`), which the snapshot then uses.
 */
async function snapshotAndCheckOut(
  context: RunContext,
  repository: LoopRepository,
  fromSha: string,
  resume: boolean,
  listed: { listing: string } | undefined,
): Promise<string | undefined> {
  const state = context.state();
  const iteration = currentIteration(state);
  if (!iteration) throw new Error("no iteration in progress");
  let preservedRef: string | undefined;
  // A checkout the last turn replaced (by a symlink, say) holds nothing to keep; it is recreated below.
  // The start commit's tree is known by now in the usual case (prepare or the last commit asked for it).
  // The snapshot then also cleans the checkout when its files are that tree: one process for both.
  const fromTree = await treeOf(context.loop.repoRoot, fromSha);
  const left = (await isRealFolder(context.makerWorktree))
    ? await snapshotTree(repository, context.makerWorktree, makerIndex, { cleanIfTree: fromTree, listed })
    : undefined;
  if (left !== undefined && left !== fromTree) {
    const ref = `refs/loopwright/${context.loop.id}/interrupted-${iteration.number}-${iteration.makerAttempts}`;
    const message = resume
      ? `loopwright: interrupted maker turn of iteration ${iteration.number}`
      : `loopwright: uncommitted files before the maker turn of iteration ${iteration.number}`;
    const saved = await commitTree(context.loop.repoRoot, left, fromSha, { message });
    await storeRef(context.loop.repoRoot, ref, saved);
    preservedRef = ref;
  }
  // The snapshot just taken shows whether the files are already the start commit's (the usual case:
  // the last iteration committed them): then they need no rewriting.
  await checkOut(
    repository,
    context.makerWorktree,
    makerIndex,
    fromSha,
    { branch: state.spec.branch },
    { filesMatch: left === fromTree, cleaned: left === fromTree },
  );
  return preservedRef;
}

/** The brief of a turn answering review round `round`, redacted, written next to the iteration's brief. */
async function writeReworkBrief(
  context: RunContext,
  iteration: number,
  round: number,
): Promise<{ brief: string; path: string }> {
  const brief = context.redact(buildReworkBrief(context.state(), iteration, round));
  const directory = context.layout.iterationDirectory(context.loop.id, iteration);
  await mkdir(directory, { recursive: true });
  const path = join(directory, `brief-review-${round}.md`);
  await writeFile(path, brief);
  return { brief, path };
}
