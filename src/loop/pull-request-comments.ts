/**
 * Noticing `/loopwright` review comments: one check of a loop's pull request (for `loopwright
 * pr-comments`, cron, a CI job on `issue_comment`, and the service's poll). Every comment not seen
 * before is recorded once as `review_comment_received`: a review request (it starts with `/loopwright`
 * and its author has write access) with its text and code context, anything else `ignored` without its
 * text. Recording is idempotent by comment id (the state folds a repeated id away), so two checks that
 * race record each comment's effect once. Running the round is the caller's: the loop is reopened.
 */
import { cap } from "../core/cap-text.ts";
import type { EventPayloads } from "../core/events.ts";
import type { PullRequestComment } from "../forge/forge-client.ts";
import { openForge } from "../forge/open-forge.ts";
import { gitResult } from "../git/git.ts";
import { defaultRemote } from "../git/repository.ts";
import type { LoopRecord, Store } from "../store/store.ts";
import { maxCommentRounds } from "./comment-rounds.ts";
import type { LoopState } from "./state.ts";
import { remoteUrlOf } from "./steps/open-pull-request.ts";

export type ReceivedComment = EventPayloads["review_comment_received"];

/** A review request's text after the command, at most this long. */
const bodyLimit = 8000;
/** Lines of code quoted on each side of the commented line. */
const contextLines = 6;

/** Why a loop's comments cannot be checked, or undefined when they can. */
export function commentCheckProblem(loop: LoopRecord, state: LoopState): string | undefined {
  if (state.spec.finish.action !== "pull-request")
    return `loop ${loop.name} does not end in a pull request (finish.action is ${state.spec.finish.action})`;
  if (state.spec.strategy.kind !== "until-verified")
    return `loop ${loop.name} uses strategy ${state.spec.strategy.kind}: /loopwright review rounds are for until-verified loops`;
  if (!state.reviewComments.pullRequest)
    return `loop ${loop.name} has no pull request yet: it opens one when it ends verified`;
  return undefined;
}

/** The comments on the loop's pull request not recorded yet, classified. Throws on a forge failure. */
export async function newPullRequestComments(loop: LoopRecord, state: LoopState): Promise<ReceivedComment[]> {
  const problem = commentCheckProblem(loop, state);
  if (problem) throw new Error(problem);
  const pull = state.reviewComments.pullRequest;
  if (!pull) return [];
  const remote = await defaultRemote(loop.repoRoot);
  const remoteUrl = remote ? await remoteUrlOf(loop.repoRoot, remote) : undefined;
  const opened = await openForge(state.spec.finish, remoteUrl);
  if ("problem" in opened) throw new Error(opened.problem);
  const client = opened.client.comments;
  const seen = new Set(state.reviewComments.seen);
  const fresh = (await client.list(pull.number)).filter((comment) => !seen.has(comment.id));
  const writers = new Map<string, boolean>();
  const received: ReceivedComment[] = [];
  for (const comment of fresh) {
    const base = {
      id: comment.id,
      pullRequest: pull.number,
      author: comment.author,
      kind: comment.kind,
      ...(comment.url ? { url: comment.url } : {}),
    };
    const request = requestText(comment.body);
    if (request === undefined) {
      received.push({ ...base, ignored: "not a /loopwright request" });
      continue;
    }
    if (!writers.has(comment.author)) writers.set(comment.author, await client.canWrite(comment.author));
    if (!writers.get(comment.author)) {
      received.push({ ...base, ignored: `${comment.author} has no write access to the repository` });
      continue;
    }
    if (maxCommentRounds(state) === 0) {
      received.push({ ...base, ignored: "review rounds are off (finish.comments.maxRounds: 0)" });
      continue;
    }
    if (remote) await fetchLoopBranch(loop.repoRoot, remote, state.spec.branch, pull.sha);
    received.push({
      ...base,
      body: cap(request, bodyLimit),
      ...location(comment),
      ...(await codeAround(loop.repoRoot, pull.sha, comment)),
    });
  }
  return received;
}

/** Records what a check found, skipping ids recorded meanwhile; returns how many requests it opened. */
export async function recordPullRequestComments(
  store: Store,
  loop: LoopRecord,
  state: LoopState,
  received: ReceivedComment[],
): Promise<number> {
  const seen = new Set(state.reviewComments.seen);
  let requests = 0;
  for (const comment of received) {
    if (seen.has(comment.id)) continue;
    await store.appendEvent(loop.id, "review_comment_received", comment);
    if (comment.ignored === undefined) requests++;
  }
  return requests;
}

/**
 * In a fresh checkout (a CI job on `issue_comment`) the loop's branch is only on the remote: the round
 * needs it here, at the pull request's commit. A branch that is already here is the loop's: left alone.
 */
async function fetchLoopBranch(repoRoot: string, remote: string, branch: string, sha: string): Promise<void> {
  const here = await gitResult(
    ["rev-parse", "--verify", "--quiet", `refs/heads/${branch}^{commit}`],
    repoRoot,
  );
  if (here.code === 0) return;
  await gitResult(["fetch", "--quiet", remote, `+refs/heads/${branch}:refs/heads/${branch}`], repoRoot);
  const fetched = await gitResult(["rev-parse", "--verify", "--quiet", `${sha}^{commit}`], repoRoot);
  if (fetched.code !== 0)
    throw new Error(
      `the loop's branch ${branch} is not here and ${remote} has no commit ${sha.slice(0, 12)}: fetch it first`,
    );
}

/** The request after `/loopwright` (possibly empty), or undefined when the comment is not one. */
export function requestText(body: string): string | undefined {
  const match = /^\s*\/loopwright(?=\s|$)/.exec(body);
  return match ? body.slice(match[0].length).trim() : undefined;
}

function location(comment: PullRequestComment) {
  return {
    ...(comment.path ? { path: comment.path } : {}),
    ...(comment.line ? { line: comment.line } : {}),
    ...(comment.diffHunk ? { diffHunk: cap(comment.diffHunk, 4000) } : {}),
    ...(comment.thread ? { thread: comment.thread } : {}),
  };
}

/** The commented lines on the verified commit, numbered: what the maker must look at. */
async function codeAround(
  repoRoot: string,
  sha: string,
  comment: PullRequestComment,
): Promise<{ code?: string }> {
  if (!comment.path || !comment.line) return {};
  const shown = await gitResult(["show", `${sha}:${comment.path}`], repoRoot);
  if (shown.code !== 0) return {};
  const lines = shown.stdout.split("\n");
  const from = Math.max(1, comment.line - contextLines);
  const to = Math.min(lines.length, comment.line + contextLines);
  const width = String(to).length;
  const numbered = [];
  for (let number = from; number <= to; number++)
    numbered.push(
      `${String(number).padStart(width)}${number === comment.line ? ">" : " "} ${lines[number - 1]}`,
    );
  return { code: numbered.join("\n") };
}
