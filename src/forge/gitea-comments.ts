/**
 * Comments on a Gitea/Forgejo pull request: its issue comments and its reviews' comments (path, line,
 * diff hunk); write access from the collaborator permission endpoint (owner, admin or write). Gitea's
 * API has no reply into a review thread: every reply is an issue comment, which names the file and line.
 */
import type { PullRequestComment, PullRequestComments } from "./forge-client.ts";

type Call = <T>(path: string, method?: "GET" | "POST" | "PATCH", body?: unknown) => Promise<T>;

interface GiteaComment {
  id: number;
  body: string;
  user?: { login: string };
  html_url?: string;
  created_at: string;
  path?: string;
  position?: number;
  original_position?: number;
  diff_hunk?: string;
}

const maxPages = 10;

export function giteaComments(call: Call): PullRequestComments {
  const asComment = (comment: GiteaComment, kind: "conversation" | "diff"): PullRequestComment => ({
    id: `${kind === "diff" ? "review" : "issue"}:${comment.id}`,
    kind,
    author: comment.user?.login ?? "",
    body: comment.body,
    url: comment.html_url,
    createdAt: comment.created_at,
    ...(kind === "diff"
      ? {
          path: comment.path,
          line: comment.position || comment.original_position || undefined,
          diffHunk: comment.diff_hunk,
        }
      : {}),
  });
  return {
    async list(number) {
      const comments: PullRequestComment[] = [];
      for (let page = 1; page <= maxPages; page++) {
        const batch = await call<GiteaComment[]>(`/issues/${number}/comments?limit=50&page=${page}`);
        comments.push(...batch.map((comment) => asComment(comment, "conversation")));
        if (batch.length < 50) break;
      }
      for (let page = 1; page <= maxPages; page++) {
        const reviews = await call<{ id: number }[]>(`/pulls/${number}/reviews?limit=50&page=${page}`);
        for (const review of reviews) {
          const batch = await call<GiteaComment[]>(`/pulls/${number}/reviews/${review.id}/comments`);
          comments.push(...batch.map((comment) => asComment(comment, "diff")));
        }
        if (reviews.length < 50) break;
      }
      return comments.sort((a, b) => a.createdAt.localeCompare(b.createdAt));
    },
    async canWrite(author) {
      try {
        const { permission } = await call<{ permission?: string }>(
          `/collaborators/${encodeURIComponent(author)}/permission`,
        );
        return ["owner", "admin", "write"].includes(permission ?? "");
      } catch (error) {
        if ((error as { status?: number }).status === 404) return false;
        throw error;
      }
    },
    async reply(number, _comment, body) {
      const reply = await call<GiteaComment>(`/issues/${number}/comments`, "POST", { body });
      return reply.html_url;
    },
  };
}
