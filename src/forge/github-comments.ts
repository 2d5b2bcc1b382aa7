/**
 * Comments on a GitHub pull request: its conversation (issue comments) and its diff (review comments,
 * with path, line and diff hunk); write access from the collaborator permission API; replies in the
 * review comment's thread, or in the conversation.
 */
import type { Octokit } from "@octokit/rest";
import type { PullRequestComment, PullRequestComments } from "./forge-client.ts";

/** Pages of 100 read at most, per kind of comment. */
const maxPages = 10;

export function githubComments(
  octokit: Octokit,
  owner: string,
  repo: string,
  fail: (error: unknown) => never,
): PullRequestComments {
  return {
    async list(number) {
      const conversation: PullRequestComment[] = [];
      for (let page = 1; page <= maxPages; page++) {
        const { data } = await octokit.rest.issues
          .listComments({ owner, repo, issue_number: number, per_page: 100, page })
          .catch(fail);
        for (const comment of data)
          conversation.push({
            id: `issue:${comment.id}`,
            kind: "conversation",
            author: comment.user?.login ?? "",
            body: comment.body ?? "",
            url: comment.html_url,
            createdAt: comment.created_at,
          });
        if (data.length < 100) break;
      }
      const diff: PullRequestComment[] = [];
      for (let page = 1; page <= maxPages; page++) {
        const { data } = await octokit.rest.pulls
          .listReviewComments({ owner, repo, pull_number: number, per_page: 100, page })
          .catch(fail);
        for (const comment of data)
          diff.push({
            id: `review:${comment.id}`,
            kind: "diff",
            author: comment.user?.login ?? "",
            body: comment.body,
            url: comment.html_url,
            createdAt: comment.created_at,
            path: comment.path,
            line: comment.line ?? comment.original_line ?? undefined,
            diffHunk: comment.diff_hunk,
            // A reply goes to the thread's first comment.
            thread: String(comment.in_reply_to_id ?? comment.id),
          });
        if (data.length < 100) break;
      }
      return [...conversation, ...diff].sort((a, b) => a.createdAt.localeCompare(b.createdAt));
    },
    async canWrite(author) {
      try {
        const { data } = await octokit.rest.repos.getCollaboratorPermissionLevel({
          owner,
          repo,
          username: author,
        });
        const role = (data as { role_name?: string }).role_name ?? "";
        return ["admin", "write"].includes(data.permission) || ["admin", "maintain", "write"].includes(role);
      } catch (error) {
        // 404: not a collaborator (or no such user); anything else is the forge's failure.
        if ((error as { status?: number }).status === 404) return false;
        return fail(error);
      }
    },
    async reply(number, comment, body) {
      if (comment.kind === "diff" && comment.thread) {
        const { data } = await octokit.rest.pulls
          .createReplyForReviewComment({
            owner,
            repo,
            pull_number: number,
            comment_id: Number(comment.thread),
            body,
          })
          .catch(fail);
        return data.html_url;
      }
      const { data } = await octokit.rest.issues
        .createComment({ owner, repo, issue_number: number, body })
        .catch(fail);
      return data.html_url;
    },
  };
}
