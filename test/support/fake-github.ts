/**
 * A GitHub REST API stand-in on loopback for the pull request endpoints loopwright calls, answering with
 * the shapes of GitHub's published description (repos get, pulls list/create/update, issues addLabels,
 * error bodies `{ message, documentation_url }`, rate limits as 403 with `retry-after`).
 */
import { createServer, type Server } from "node:http";
import { answerGithubCi, type FakeCi } from "./fake-ci.ts";
import { botUser, commentBoard, type FakeComment, type FakeCommentBoard } from "./fake-forges.ts";

export interface FakePull {
  number: number;
  html_url: string;
  state: "open" | "closed";
  title: string;
  body: string;
  draft: boolean;
  head: { ref: string; label: string };
  base: { ref: string };
  labels: { id: number; name: string }[];
}

export interface FakeGithub extends FakeCommentBoard {
  url: string;
  pulls: FakePull[];
  requests: string[];
  /** Answer the next N requests to pull request paths with a secondary rate limit (403, retry-after: 1). */
  rateLimitNext(count: number): void;
  /** Pull request creations into these base branches fail as GitHub fails them for a missing base (422). */
  missingBases: Set<string>;
  close(): Promise<void>;
}

export async function startFakeGithub(options: {
  token: string;
  repository: string;
  /** CI on this forge (check runs, statuses, job logs), when a test watches it. */
  ci?: FakeCi;
}): Promise<FakeGithub> {
  const board = commentBoard();
  const pulls: FakePull[] = [];
  const requests: string[] = [];
  const missingBases = new Set<string>();
  let limited = 0;
  const [owner] = options.repository.split("/");
  const server: Server = createServer(async (request, response) => {
    const chunks: Buffer[] = [];
    for await (const chunk of request) chunks.push(chunk as Buffer);
    const body = chunks.length > 0 ? JSON.parse(Buffer.concat(chunks).toString("utf8")) : undefined;
    const url = new URL(request.url ?? "/", "http://localhost");
    requests.push(`${request.method} ${url.pathname}${url.search}`);
    const send = (status: number, data: unknown, headers: Record<string, string> = {}) => {
      response.writeHead(status, { "content-type": "application/json; charset=utf-8", ...headers });
      response.end(JSON.stringify(data));
    };
    if (request.headers.authorization !== `token ${options.token}`)
      return send(401, { message: "Bad credentials", documentation_url: "https://docs.github.com/rest" });
    if (limited > 0 && url.pathname.includes("/pulls")) {
      limited--;
      return send(
        403,
        {
          message:
            "You have exceeded a secondary rate limit. Please wait a few minutes before you try again.",
          documentation_url: "https://docs.github.com/rest",
        },
        { "retry-after": "1" },
      );
    }
    const prefix = `/repos/${options.repository}`;
    if (!url.pathname.startsWith(prefix)) return send(404, { message: "Not Found", documentation_url: "" });
    const rest = url.pathname.slice(prefix.length);
    if (rest === "" && request.method === "GET")
      return send(200, {
        id: 1,
        full_name: options.repository,
        permissions: { admin: false, push: true, pull: true },
      });
    if (rest === "/pulls" && request.method === "GET") {
      const head = url.searchParams.get("head");
      const base = url.searchParams.get("base");
      return send(
        200,
        pulls.filter(
          (pull) =>
            pull.state === (url.searchParams.get("state") ?? "open") &&
            (!head || pull.head.label === head) &&
            (!base || pull.base.ref === base),
        ),
      );
    }
    if (rest === "/pulls" && request.method === "POST") {
      if (missingBases.has(body.base))
        return send(422, {
          message: "Validation Failed",
          errors: [{ resource: "PullRequest", field: "base", code: "invalid" }],
          documentation_url: "https://docs.github.com/rest/pulls/pulls#create-a-pull-request",
        });
      if (pulls.some((pull) => pull.state === "open" && pull.head.ref === body.head))
        return send(422, {
          message: "Validation Failed",
          errors: [
            {
              resource: "PullRequest",
              code: "custom",
              message: `A pull request already exists for ${owner}:${body.head}.`,
            },
          ],
        });
      const number = pulls.length + 1;
      const pull: FakePull = {
        number,
        html_url: `https://github.example/${options.repository}/pull/${number}`,
        state: "open",
        title: body.title,
        body: body.body,
        draft: body.draft ?? false,
        head: { ref: body.head, label: `${owner}:${body.head}` },
        base: { ref: body.base },
        labels: [],
      };
      pulls.push(pull);
      return send(201, pull);
    }
    const pullMatch = /^\/pulls\/(\d+)$/.exec(rest);
    if (pullMatch && request.method === "PATCH") {
      const pull = pulls.find((candidate) => candidate.number === Number(pullMatch[1]));
      if (!pull) return send(404, { message: "Not Found" });
      Object.assign(pull, { title: body.title ?? pull.title, body: body.body ?? pull.body });
      return send(200, pull);
    }
    const userOf = (login: string) => ({
      login,
      id: login.length * 1000,
      type: login === botUser ? "Bot" : "User",
    });
    const rendered = (comment: FakeComment) => ({
      id: comment.id,
      node_id: `IC_${comment.id}`,
      html_url: `https://github.example/${options.repository}/pull/${comment.pull}#${comment.kind === "diff" ? "discussion_r" : "issuecomment-"}${comment.id}`,
      body: comment.body,
      user: userOf(comment.author),
      created_at: comment.createdAt,
      updated_at: comment.createdAt,
      author_association: board.permissions.has(comment.author) ? "COLLABORATOR" : "NONE",
      ...(comment.kind === "diff"
        ? {
            pull_request_review_id: 1,
            diff_hunk: comment.diffHunk ?? "",
            path: comment.path,
            line: comment.line ?? null,
            original_line: comment.line ?? null,
            side: "RIGHT",
            ...(comment.thread ? { in_reply_to_id: Number(comment.thread) } : {}),
          }
        : {}),
    });
    const page = (all: FakeComment[]) => {
      const size = Number(url.searchParams.get("per_page") ?? 30);
      const number = Number(url.searchParams.get("page") ?? 1);
      return all.slice((number - 1) * size, number * size).map(rendered);
    };
    const permission = /^\/collaborators\/([^/]+)\/permission$/.exec(rest);
    if (permission && request.method === "GET") {
      const login = decodeURIComponent(permission[1]);
      const level = board.permissions.get(login) ?? "read";
      return send(200, { permission: level, role_name: level, user: userOf(login) });
    }
    const issueComments = /^\/issues\/(\d+)\/comments$/.exec(rest);
    if (issueComments && request.method === "GET")
      return send(
        200,
        page(
          board.comments.filter(
            (comment) => comment.pull === Number(issueComments[1]) && comment.kind === "conversation",
          ),
        ),
      );
    if (issueComments && request.method === "POST") {
      const reply = board.comment({
        pull: Number(issueComments[1]),
        author: botUser,
        body: body.body,
        kind: "conversation",
      });
      board.onReply?.(reply);
      return send(201, rendered(reply));
    }
    const reviewComments = /^\/pulls\/(\d+)\/comments$/.exec(rest);
    if (reviewComments && request.method === "GET")
      return send(
        200,
        page(
          board.comments.filter(
            (comment) => comment.pull === Number(reviewComments[1]) && comment.kind === "diff",
          ),
        ),
      );
    const replies = /^\/pulls\/(\d+)\/comments\/(\d+)\/replies$/.exec(rest);
    if (replies && request.method === "POST") {
      const original = board.comments.find((comment) => comment.id === Number(replies[2]));
      if (!original) return send(404, { message: "Not Found" });
      const reply = board.comment({
        pull: original.pull,
        author: botUser,
        body: body.body,
        kind: "diff",
        path: original.path,
        line: original.line,
        diffHunk: original.diffHunk,
        thread: String(original.id),
      });
      board.onReply?.(reply);
      return send(201, rendered(reply));
    }
    const labelMatch = /^\/issues\/(\d+)\/labels$/.exec(rest);
    if (labelMatch && request.method === "POST") {
      const pull = pulls.find((candidate) => candidate.number === Number(labelMatch[1]));
      if (!pull) return send(404, { message: "Not Found" });
      pull.labels.push(...(body.labels as string[]).map((name, index) => ({ id: index + 1, name })));
      return send(200, pull.labels);
    }
    const ci =
      options.ci &&
      answerGithubCi(options.ci, request.method ?? "GET", rest, `http://${request.headers.host}${prefix}`);
    if (ci?.text !== undefined) {
      response.writeHead(ci.status, ci.headers);
      return response.end(ci.text);
    }
    if (ci) return send(ci.status, ci.data, ci.headers);
    send(404, { message: "Not Found", documentation_url: "" });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const address = server.address();
  const port = typeof address === "object" && address ? address.port : 0;
  return Object.assign(board, {
    url: `http://127.0.0.1:${port}`,
    pulls,
    requests,
    missingBases,
    rateLimitNext: (count: number) => {
      limited = count;
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  });
}
