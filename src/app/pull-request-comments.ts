/**
 * One check of a loop's pull request for `/loopwright` review comments (`loopwright pr-comments`): new
 * comments are recorded once each; the caller runs the loop when a review request is open (its round
 * then runs in the foreground, under the loop's lock, as `resume` runs a loop).
 */
import { UsageError } from "../errors.ts";
import { openCommentRound } from "../loop/comment-rounds.ts";
import {
  commentCheckProblem,
  newPullRequestComments,
  type ReceivedComment,
  recordPullRequestComments,
} from "../loop/pull-request-comments.ts";
import type { LoopRecord } from "../store/store.ts";
import { type AppContext, readLoop } from "./app-context.ts";

export interface CommentCheck {
  loop: LoopRecord;
  pullRequest: { number: number; url?: string };
  /** What this check recorded (comments an earlier check recorded are not repeated). */
  received: ReceivedComment[];
  /** A review request waits for its round (new, or left by a controller that died): run the loop. */
  roundDue: boolean;
  /** A live controller runs the loop: it takes the requests up itself. */
  busy: boolean;
}

/** Throws `LoopNotFoundError`, or `UsageError` for a loop without a pull request. */
export async function checkPullRequestComments(
  context: AppContext,
  reference: string,
): Promise<CommentCheck> {
  const { loop, state } = await readLoop(context, reference);
  const problem = commentCheckProblem(loop, state);
  if (problem) throw new UsageError(problem);
  const received = await newPullRequestComments(loop, state);
  await recordPullRequestComments(context.store, loop, state, received);
  const after = (await readLoop(context, loop.id)).state;
  const busy = (await context.store.lockHolder(loop.id)) !== undefined;
  const pull = after.reviewComments.pullRequest;
  return {
    loop,
    pullRequest: { number: pull?.number ?? 0, ...(pull?.url ? { url: pull.url } : {}) },
    received: received.filter((comment) => !state.reviewComments.seen.includes(comment.id)),
    roundDue: !busy && after.status === "running" && openCommentRound(after) !== undefined,
    busy,
  };
}
