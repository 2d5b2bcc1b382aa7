/**
 * The policy of `review:` rounds, for any strategy: after each maker turn that changed code, a reviewer
 * reads that turn's patch; its findings are the maker's next turn; the rounds stop at `ok`, at a turn
 * that changes nothing, or at the cap, and then the iteration goes on to its gates. Pure: `decide`
 * asks it for the next step between the commit and the screen.
 */
import type { IterationOutcome } from "../core/events.ts";
import type { IterationState, LoopState, ReviewRound } from "./state.ts";

export type ReviewStep =
  | { kind: "run_review"; iteration: number; round: number }
  | { kind: "run_maker"; iteration: number; resume: false; reviewRound: number }
  | { kind: "end"; outcome: IterationOutcome; summary: string };

/** The next review step of an iteration whose maker turn is committed; undefined when the gates are next. */
export function nextReviewStep(state: LoopState, iteration: IterationState): ReviewStep | undefined {
  const review = state.spec.review;
  const commit = iteration.commit;
  if (!review || !commit) return undefined;
  const number = iteration.number;
  // A turn that changed nothing has nothing to review (or ignored the findings): the rounds are over.
  if (commit.sha === turnBase(iteration)) return undefined;
  const last = iteration.reviews.at(-1);
  if (last && last.sha === commit.sha) return afterRound(last, number, review.rounds);
  const round = iteration.reviews.length + 1;
  return round <= review.rounds ? { kind: "run_review", iteration: number, round } : undefined;
}

/** What follows a round on the current commit. */
function afterRound(round: ReviewRound, iteration: number, cap: number): ReviewStep | undefined {
  if (round.running || round.status === "interrupted")
    return { kind: "run_review", iteration, round: round.round };
  switch (round.status) {
    case "reviewed":
      if (round.verdict !== "changes_requested" || round.findings.length === 0) return undefined;
      return round.round < cap
        ? { kind: "run_maker", iteration, resume: false, reviewRound: round.round }
        : undefined;
    case "cancelled":
      return { kind: "end", outcome: "cancelled", summary: "cancelled by the user during a review round" };
    case "over_budget":
      return { kind: "end", outcome: "over_budget", summary: round.error ?? "the reviewer ran over budget" };
    default:
      return {
        kind: "end",
        outcome: "infra_error",
        summary: `reviewer ${round.status}: ${round.error ?? "no reason given"}`,
      };
  }
}

/** The commit the current maker turn started from: the reviewed commit it answers, or the iteration's start. */
export function turnBase(iteration: IterationState): string {
  const answered = iteration.reviews.find((review) => review.round === iteration.reworkRound);
  return answered?.sha ?? iteration.startSha;
}

/**
 * The maker turn's number, as engines count a role's turns (scripted engines play `turns[N-1]`): the
 * iteration's number plus every turn that answered a review round before it. Without review rounds it is
 * the iteration's number, as it always was; the same on a re-run after a crash.
 */
export function makerTurnNumber(state: LoopState, iterationNumber: number, reviewRound?: number): number {
  const earlier = state.iterations
    .filter((iteration) => iteration.number < iterationNumber)
    .reduce((total, iteration) => total + reworkTurns(iteration), 0);
  return iterationNumber + earlier + (reviewRound ?? 0);
}

/** How many maker turns of an iteration answered a review round. */
function reworkTurns(iteration: IterationState): number {
  return iteration.reworkRound ?? 0;
}

/** The reviewer's turn number: one per answer it gave before (corrective retries included), plus `attempt`. */
export function reviewerTurnNumber(
  state: LoopState,
  iterationNumber: number,
  round: number,
  attempt: number,
) {
  const before = state.iterations.flatMap((iteration) =>
    iteration.reviews.filter(
      (review) =>
        !review.running &&
        review.status !== "interrupted" &&
        (iteration.number < iterationNumber ||
          (iteration.number === iterationNumber && review.round < round)),
    ),
  );
  return before.reduce((total, review) => total + review.rejections + 1, 0) + attempt;
}
