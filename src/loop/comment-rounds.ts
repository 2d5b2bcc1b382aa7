/**
 * The policy of `/loopwright` review rounds on a loop's pull request. A review request (recorded by
 * `review_comment_received`) reopens the stopped loop; each request, in order, gets one iteration on
 * the same branch whose brief quotes it, then the usual finish (push) and pull request update, then a
 * reply (`review_comment_answered`); past `finish.comments.maxRounds` a request only gets a reply.
 * With `finish.ci`, the round's push is watched like the loop's own; a red CI is named in the reply and
 * the loop stops `ci_failed` (a review round starts no CI repair). When no request is open the loop
 * stops `verified` again. Pure: `decide` asks it between iterations.
 */
import { nextCiStep } from "./ci-rounds.ts";
import type { Action } from "./decide.ts";
import type { CommentRound, LoopState } from "./state.ts";

/** A step of the review rounds: always one of `decide`'s actions. */
export type CommentStep = Action;

export const defaultMaxCommentRounds = 3;

/** The rounds a loop grants (0: none). */
export function maxCommentRounds(state: LoopState): number {
  return state.spec.finish.comments?.maxRounds ?? defaultMaxCommentRounds;
}

/** The oldest request not answered yet. */
export function openCommentRound(state: LoopState): CommentRound | undefined {
  return state.reviewComments.rounds.find((round) => !round.answered);
}

/** The next step of the review rounds, between iterations; undefined when they have nothing to do. */
export function nextCommentStep(state: LoopState): CommentStep | undefined {
  const comments = state.reviewComments;
  const open = openCommentRound(state);
  if (!open) {
    if (!comments.stopDue) return undefined;
    const red = ciFailure(state);
    return red
      ? { kind: "stop", reason: "ci_failed", message: `${answeredMessage(state)}; ${red}` }
      : { kind: "stop", reason: "verified", message: answeredMessage(state) };
  }
  if (open.iteration === undefined) {
    const started = comments.rounds.filter((round) => round.iteration !== undefined).length;
    if (started >= maxCommentRounds(state))
      return {
        kind: "answer_comment",
        id: open.id,
        outcome: "limit",
        reason: `this pull request had its ${maxCommentRounds(state)} review rounds (finish.comments.maxRounds)`,
      };
    return { kind: "start_iteration", iteration: (state.iterations.at(-1)?.number ?? 0) + 1 };
  }
  const iteration = state.iterations.find((candidate) => candidate.number === open.iteration);
  if (!iteration?.ended) return undefined;
  if (iteration.ended.outcome !== "verified")
    return { kind: "answer_comment", id: open.id, outcome: "failed", reason: iteration.ended.summary };
  if (!state.finished) return { kind: "finish" };
  if (state.spec.finish.action === "pull-request" && state.finished.pushed && !state.pullRequest)
    return { kind: "open_pull_request" };
  const sha = state.finished.sha;
  const failure = state.finished.error ?? state.pullRequest?.error;
  if (failure) return { kind: "answer_comment", id: open.id, outcome: "failed", sha, reason: failure };
  // finish.ci: the round's push is watched before the reply.
  const ci = nextCiStep(state);
  if (ci?.kind === "watch_ci" || (ci?.kind === "stop" && ci.reason === "user_cancelled")) return ci;
  const red = ciFailure(state);
  const changed = iteration.commit?.committed === true && sha !== open.fromSha;
  return changed
    ? { kind: "answer_comment", id: open.id, outcome: "changed", sha, ...(red ? { reason: red } : {}) }
    : {
        kind: "answer_comment",
        id: open.id,
        outcome: "unchanged",
        sha,
        reason: "the maker changed nothing; the gates and the verifier passed as before",
      };
}

/** Why the forge's checks on the pushed commit are red, when `finish.ci` watched them and they are. */
function ciFailure(state: LoopState): string | undefined {
  const ci = nextCiStep(state);
  if (ci?.kind === "start_ci_repair") return `the forge's checks failed on ${ci.sha.slice(0, 12)}`;
  if (ci?.kind === "stop" && ci.reason === "ci_failed") return ci.message;
  return undefined;
}

/** The stop message after the rounds: what the last answered request came to. */
function answeredMessage(state: LoopState): string {
  const answered = state.reviewComments.rounds.filter((round) => round.answered);
  const last = answered.at(-1);
  const what: Record<string, string> = {
    changed: "a verified commit pushed",
    unchanged: "nothing changed",
    failed: "not verified, nothing pushed",
    limit: "round limit reached",
  };
  const outcome = last?.answered ? what[last.answered] : "answered";
  const url = state.reviewComments.pullRequest?.url;
  return `verified; review comment ${last?.id ?? ""} by ${last?.author ?? "?"} answered: ${outcome}${url ? ` (${url})` : ""}`;
}

/** The most of a request's text a brief quotes. */
const requestLimit = 4000;

/** The brief's section for the request whose round starts now, if one does. */
export function commentBriefSection(state: LoopState): string | undefined {
  const round = state.reviewComments.rounds.find(
    (candidate) => !candidate.answered && candidate.iteration === undefined,
  );
  if (!round) return undefined;
  const where = round.path ? `${round.path}${round.line ? `:${round.line}` : ""}` : undefined;
  const lines = [
    "## Review request on the pull request",
    `The loop's work is verified and in pull request #${round.pullRequest}. ${round.author}, who may push to the repository, asks for this change${where ? ` on ${where}` : ""}${round.url ? ` (${round.url})` : ""}:`,
    "",
    quoteBlock(round.body.slice(0, requestLimit)),
  ];
  if (round.diffHunk) lines.push("", "The diff hunk it comments on:", fence(round.diffHunk));
  if (round.code)
    lines.push("", `${round.path} on the verified commit, around line ${round.line}:`, fence(round.code));
  lines.push(
    "",
    "Make the change asked for, and only that, on top of the verified work: the gates and the verifier judge it as before. If nothing should change, leave the files as they are and say why.",
  );
  return lines.join("\n");
}

function quoteBlock(text: string): string {
  return text
    .split("\n")
    .map((line) => `> ${line}`)
    .join("\n");
}

function fence(text: string): string {
  const ticks = text.includes("```") ? "````" : "```";
  return `${ticks}\n${text.replace(/\n$/, "")}\n${ticks}`;
}
