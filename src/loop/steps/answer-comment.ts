/**
 * The reply to a `/loopwright` review request, on its pull request (in the comment's thread where the
 * forge has threads): it links the verified commit that was pushed, or says why nothing changed. A
 * round that was not verified leaves the branch on the pull request's verified commit. The reply carries
 * a marker with the request's id, so a controller killed after posting it and before recording
 * `review_comment_answered` finds it on resume instead of replying twice. A reply the forge refuses is
 * recorded with its error: the request is answered on the timeline and never handled again.
 */

import { openForge } from "../../forge/open-forge.ts";
import { branchTip, moveBranch } from "../../git/loop-branch.ts";
import { defaultRemote } from "../../git/repository.ts";
import type { Action } from "../decide.ts";
import type { RunContext } from "../run-context.ts";
import { remoteUrlOf } from "./open-pull-request.ts";

type Answer = Extract<Action, { kind: "answer_comment" }>;

export async function answerComment(context: RunContext, action: Answer): Promise<void> {
  const state = context.state();
  const round = state.reviewComments.rounds.find((candidate) => candidate.id === action.id);
  if (!round) throw new Error(`no review request ${action.id} on the timeline`);
  // A round that was not published leaves the branch where the pull request's verified work is.
  const branch = state.spec.branch;
  if (action.outcome === "failed" && round.fromSha) {
    if ((await branchTip(context.loop.repoRoot, branch)) !== round.fromSha)
      await moveBranch(context.loop.repoRoot, branch, round.fromSha);
  }
  const pull = state.reviewComments.pullRequest;
  const reply = replyText(action, round.author, round.id, pull?.url);
  const base = { id: action.id, outcome: action.outcome, ...(action.sha ? { sha: action.sha } : {}), reply };
  const remote = state.finished?.remote ?? (await defaultRemote(context.loop.repoRoot));
  const remoteUrl = remote ? await remoteUrlOf(context.loop.repoRoot, remote) : undefined;
  const opened = await openForge(state.spec.finish, remoteUrl);
  if ("problem" in opened) {
    await context.append("review_comment_answered", { ...base, error: opened.problem });
    return;
  }
  try {
    const comments = opened.client.comments;
    const marker = answerMarker(round.id);
    const earlier = (await comments.list(round.pullRequest)).find((comment) => comment.body.includes(marker));
    const replyUrl =
      earlier?.url ??
      (await comments.reply(
        round.pullRequest,
        {
          id: round.id,
          kind: round.kind,
          author: round.author,
          body: "",
          createdAt: "",
          thread: round.thread,
        },
        reply,
      ));
    await context.append("review_comment_answered", { ...base, ...(replyUrl ? { replyUrl } : {}) });
  } catch (error) {
    await context.append("review_comment_answered", {
      ...base,
      error: error instanceof Error ? error.message : String(error),
    });
  }
}

/** The hidden line that ties a reply to the request it answers. */
export function answerMarker(id: string): string {
  return `<!-- loopwright answers ${id} -->`;
}

/** The reply's text: the commit with its link, or why nothing changed. */
export function replyText(action: Answer, author: string, id: string, pullUrl: string | undefined): string {
  const short = action.sha?.slice(0, 12);
  const link = action.sha && pullUrl ? `[${short}](${commitUrl(pullUrl, action.sha)})` : short;
  const said = {
    changed: `Done in ${link}: the gates passed and the verifier approved; the branch is pushed and the description updated.${action.reason ? ` But ${action.reason}.` : ""}`,
    unchanged: `Nothing changed: ${action.reason ?? ""}. The branch stays at ${link}.`,
    failed: `Nothing pushed: ${action.reason ?? "the round did not verify"}. The branch stays at the verified commit.`,
    limit: `Not done: ${action.reason ?? "the review round limit is reached"}.`,
  }[action.outcome];
  return `@${author} ${said}\n\n${answerMarker(id)}`;
}

/** A commit seen within its pull request, in each forge's web address scheme. */
function commitUrl(pullUrl: string, sha: string): string {
  if (pullUrl.includes("/-/merge_requests/")) return `${pullUrl}/diffs?commit_id=${sha}`;
  return `${pullUrl}/commits/${sha}`;
}
