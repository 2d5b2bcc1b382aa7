/**
 * GitLab and Gitea/Forgejo API stand-ins on loopback for the merge/pull request endpoints loopwright
 * calls, answering with the shapes of their published API descriptions (GitLab REST v4: projects,
 * merge_requests with iid/web_url/source_branch; Gitea swagger v1: repos, pulls with number/html_url/
 * head.ref, labels by id; Gitea answers an edit with 201). GitLab is served under a path prefix, as a
 * self-hosted GitLab at https://host/gitlab is.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import { answerGiteaCi, answerGitlabCi, type FakeAnswer, type FakeCi } from "./fake-ci.ts";

export interface FakeRequest {
  number: number;
  url: string;
  head: string;
  base: string;
  title: string;
  body: string;
  labels: string[];
}

/** A comment on a fake pull/merge request, in loopwright's terms; each fake renders its forge's shape. */
export interface FakeComment {
  id: number;
  pull: number;
  author: string;
  body: string;
  kind: "conversation" | "diff";
  path?: string;
  line?: number;
  diffHunk?: string;
  /** GitHub: the review comment it replies to; GitLab: its discussion; Gitea: its review. */
  thread?: string;
  createdAt: string;
}

/** Comments and permissions shared by the three fakes. */
export interface FakeCommentBoard {
  comments: FakeComment[];
  /** Users and their repository permission (GitHub/Gitea: admin, write, read; GitLab: an access level). */
  permissions: Map<string, string>;
  /** Adds a comment as a user would; returns it. */
  comment(entry: Omit<FakeComment, "id" | "createdAt">): FakeComment;
  /** Called when loopwright posts a reply, after it is stored and before the answer is sent. */
  onReply?: (comment: FakeComment) => void;
}

/** The user whose token loopwright uses in the fakes. */
export const botUser = "loopwright-bot";

export function commentBoard(): FakeCommentBoard {
  let next = 7000;
  const board: FakeCommentBoard = {
    comments: [],
    permissions: new Map([[botUser, "write"]]),
    comment(entry) {
      next += 1;
      const comment = {
        ...entry,
        id: next,
        createdAt: new Date(Date.UTC(2026, 0, 1, 0, 0, next - 7000)).toISOString(),
      };
      board.comments.push(comment);
      return comment;
    },
  };
  return board;
}

/** Stores loopwright's reply and tells `onReply`. */
function postReply(
  board: FakeCommentBoard,
  entry: Omit<FakeComment, "id" | "createdAt" | "author">,
): FakeComment {
  const reply = board.comment({ ...entry, author: botUser });
  board.onReply?.(reply);
  return reply;
}

const user = (login: string) => ({
  id: 100 + [...login].reduce((sum, char) => sum + char.charCodeAt(0), 0),
  login,
});

export interface FakeForge extends FakeCommentBoard {
  /** The API base URL to give as finish.api. */
  api: string;
  requests: FakeRequest[];
  /** Answer the next N requests to pull/merge request paths with 429 and retry-after: 1. */
  rateLimitNext(count: number): void;
  /** Called when a pull/merge request is created, after it is stored and before the answer is sent. */
  onCreate?: (request: FakeRequest) => void;
  close(): Promise<void>;
}

type Handler = (
  method: string,
  path: string,
  query: URLSearchParams,
  body: Record<string, unknown> | undefined,
  authorization: string | undefined,
) => FakeAnswer;

async function serve(
  handler: Handler,
  limitedPath: RegExp,
): Promise<{ server: Server; port: number; limit: (count: number) => void }> {
  let limited = 0;
  const server = createServer(async (request: IncomingMessage, response: ServerResponse) => {
    const chunks: Buffer[] = [];
    for await (const chunk of request) chunks.push(chunk as Buffer);
    const text = Buffer.concat(chunks).toString("utf8");
    const url = new URL(request.url ?? "/", "http://localhost");
    if (limited > 0 && limitedPath.test(url.pathname)) {
      limited--;
      response.writeHead(429, { "content-type": "application/json", "retry-after": "1" });
      response.end(JSON.stringify({ message: "429 Too Many Requests" }));
      return;
    }
    const authorization =
      (request.headers["private-token"] as string | undefined) ?? request.headers.authorization;
    const {
      status,
      data,
      text: answerText,
      headers,
    } = handler(
      request.method ?? "GET",
      url.pathname,
      url.searchParams,
      text ? JSON.parse(text) : undefined,
      authorization,
    );
    if (answerText !== undefined) {
      response.writeHead(status, headers);
      response.end(answerText);
      return;
    }
    response.writeHead(status, { "content-type": "application/json", ...headers });
    response.end(JSON.stringify(data));
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const address = server.address();
  return {
    server,
    port: typeof address === "object" && address ? address.port : 0,
    limit: (count) => {
      limited = count;
    },
  };
}

function finish(
  forge: FakeForge,
  server: Server,
  port: number,
  api: string,
  limit: (count: number) => void,
): FakeForge {
  return Object.assign(forge, {
    api: api.replace("PORT", String(port)),
    rateLimitNext: limit,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  });
}

/** The forge object before its server listens: handlers reach `onCreate` through it. */
function unstarted(requests: FakeRequest[]): FakeForge {
  return Object.assign(commentBoard(), {
    api: "",
    requests,
    rateLimitNext: () => {},
    close: async () => {},
  });
}

export async function startFakeGitlab(options: {
  token: string;
  project: string;
  /** CI on this forge (pipelines, jobs, traces), when a test watches it. */
  ci?: FakeCi;
}): Promise<FakeForge> {
  const requests: FakeRequest[] = [];
  const forge = unstarted(requests);
  const prefix = `/gitlab/api/v4/projects/${encodeURIComponent(options.project)}`;
  const mergeRequest = (request: FakeRequest) => ({
    id: 1000 + request.number,
    iid: request.number,
    project_id: 7,
    title: request.title,
    description: request.body,
    state: "opened",
    source_branch: request.head,
    target_branch: request.base,
    labels: request.labels,
    draft: request.title.startsWith("Draft: "),
    web_url: request.url,
  });
  const { server, port, limit } = await serve((method, path, query, body, authorization) => {
    if (authorization !== options.token) return { status: 401, data: { message: "401 Unauthorized" } };
    if (!path.startsWith(prefix)) return { status: 404, data: { message: "404 Project Not Found" } };
    const rest = path.slice(prefix.length);
    if (rest === "" && method === "GET")
      return {
        status: 200,
        data: {
          id: 7,
          path_with_namespace: options.project,
          permissions: { project_access: { access_level: 30, notification_level: 3 }, group_access: null },
        },
      };
    if (rest === "/merge_requests" && method === "GET")
      return {
        status: 200,
        data: requests
          .filter(
            (request) =>
              (!query.get("source_branch") || request.head === query.get("source_branch")) &&
              (!query.get("target_branch") || request.base === query.get("target_branch")),
          )
          .map(mergeRequest),
      };
    if (rest === "/merge_requests" && method === "POST") {
      if (requests.some((request) => request.head === body?.source_branch))
        return {
          status: 409,
          data: { message: ["Another open merge request already exists for this source branch"] },
        };
      const number = requests.length + 1;
      const request: FakeRequest = {
        number,
        url: `https://gitlab.example/gitlab/${options.project}/-/merge_requests/${number}`,
        head: String(body?.source_branch),
        base: String(body?.target_branch),
        title: String(body?.title),
        body: String(body?.description ?? ""),
        labels: body?.labels ? String(body.labels).split(",") : [],
      };
      requests.push(request);
      forge.onCreate?.(request);
      return { status: 201, data: mergeRequest(request) };
    }
    const member = /^\/members\/all\/(\d+)$/.exec(rest);
    if (member && method === "GET") {
      const login = [...forge.permissions.keys()].find((name) => user(name).id === Number(member[1]));
      if (!login) return { status: 404, data: { message: "404 Not found" } };
      return {
        status: 200,
        data: {
          id: user(login).id,
          username: login,
          name: login,
          state: "active",
          access_level: Number(forge.permissions.get(login)),
        },
      };
    }
    const thread = /^\/merge_requests\/(\d+)\/(discussions|notes)(?:\/([0-9a-f]+)\/notes)?$/.exec(rest);
    if (thread) {
      const pull = Number(thread[1]);
      const note = (comment: FakeComment) => ({
        id: comment.id,
        type: comment.kind === "diff" ? "DiffNote" : null,
        body: comment.body,
        author: { ...user(comment.author), username: comment.author, name: comment.author },
        created_at: comment.createdAt,
        system: false,
        noteable_iid: pull,
        noteable_type: "MergeRequest",
        ...(comment.kind === "diff"
          ? {
              position: {
                position_type: "text",
                old_path: comment.path,
                new_path: comment.path,
                old_line: null,
                new_line: comment.line,
              },
            }
          : {}),
      });
      const discussionOf = (comment: FakeComment) => comment.thread ?? `d${comment.id.toString(16)}`;
      if (thread[2] === "discussions" && !thread[3] && method === "GET") {
        const discussions = new Map<string, FakeComment[]>();
        for (const comment of forge.comments.filter((candidate) => candidate.pull === pull))
          discussions.set(discussionOf(comment), [
            ...(discussions.get(discussionOf(comment)) ?? []),
            comment,
          ]);
        return {
          status: 200,
          data: [...discussions].map(([id, notes]) => ({
            id,
            individual_note: notes.length === 1 && notes[0].kind === "conversation",
            notes: notes.map(note),
          })),
        };
      }
      if (thread[3] && method === "POST") {
        const reply = postReply(forge, {
          pull,
          body: String(body?.body),
          kind: "conversation",
          thread: thread[3],
        });
        return { status: 201, data: note(reply) };
      }
      if (thread[2] === "notes" && method === "POST") {
        const reply = postReply(forge, { pull, body: String(body?.body), kind: "conversation" });
        return { status: 201, data: note(reply) };
      }
    }
    const match = /^\/merge_requests\/(\d+)$/.exec(rest);
    const found = match && requests.find((request) => request.number === Number(match[1]));
    if (found && method === "GET") return { status: 200, data: mergeRequest(found) };
    if (found && method === "PUT") {
      if (typeof body?.description === "string") found.body = body.description;
      return { status: 200, data: mergeRequest(found) };
    }
    const ci =
      options.ci &&
      answerGitlabCi(options.ci, method, rest, query, `https://gitlab.example/gitlab/${options.project}`);
    if (ci) return ci;
    return { status: 404, data: { message: "404 Not Found" } };
  }, /merge_requests/);
  return finish(forge, server, port, "http://127.0.0.1:PORT/gitlab/api/v4", limit);
}

export async function startFakeGitea(options: {
  token: string;
  repository: string;
  /** CI on this forge (commit statuses, Actions runs, jobs, logs), when a test watches it. */
  ci?: FakeCi;
}): Promise<FakeForge> {
  const requests: FakeRequest[] = [];
  const forge = unstarted(requests);
  const labels = [
    { id: 11, name: "loopwright", color: "00aabb" },
    { id: 12, name: "bug", color: "ee0701" },
  ];
  const prefix = `/api/v1/repos/${options.repository}`;
  const pull = (request: FakeRequest) => ({
    id: 500 + request.number,
    number: request.number,
    html_url: request.url,
    state: "open",
    title: request.title,
    body: request.body,
    head: { ref: request.head, label: request.head },
    base: { ref: request.base, label: request.base },
    labels: labels.filter((label) => request.labels.includes(label.name)),
  });
  const { server, port, limit } = await serve((method, path, query, body, authorization) => {
    if (authorization !== `token ${options.token}`)
      return { status: 401, data: { message: "user does not exist [uid: 0, name: ]", url: "" } };
    if (!path.startsWith(prefix))
      return { status: 404, data: { message: "The target couldn't be found.", errors: [] } };
    const rest = path.slice(prefix.length);
    if (rest === "" && method === "GET")
      return {
        status: 200,
        data: { id: 3, full_name: options.repository, permissions: { admin: false, push: true, pull: true } },
      };
    if (rest === "/labels" && method === "GET") return { status: 200, data: labels };
    if (rest === "/pulls" && method === "GET") {
      const page = Number(query.get("page") ?? 1);
      const size = Number(query.get("limit") ?? 30);
      return { status: 200, data: requests.slice((page - 1) * size, page * size).map(pull) };
    }
    if (rest === "/pulls" && method === "POST") {
      if (requests.some((request) => request.head === body?.head))
        return { status: 409, data: { message: "pull request already exists for these targets" } };
      const number = requests.length + 1;
      const ids = (body?.labels as number[] | undefined) ?? [];
      const request: FakeRequest = {
        number,
        url: `http://127.0.0.1:${port}/${options.repository}/pulls/${number}`,
        head: String(body?.head),
        base: String(body?.base),
        title: String(body?.title),
        body: String(body?.body ?? ""),
        labels: labels.filter((label) => ids.includes(label.id)).map((label) => label.name),
      };
      requests.push(request);
      forge.onCreate?.(request);
      return { status: 201, data: pull(request) };
    }
    const permission = /^\/collaborators\/([^/]+)\/permission$/.exec(rest);
    if (permission && method === "GET") {
      const login = decodeURIComponent(permission[1]);
      const level = forge.permissions.get(login) ?? "read";
      return { status: 200, data: { permission: level, role_name: level, user: user(login) } };
    }
    const giteaComment = (comment: FakeComment) => ({
      id: comment.id,
      html_url: `http://127.0.0.1:${port}/${options.repository}/pulls/${comment.pull}#issuecomment-${comment.id}`,
      user: user(comment.author),
      body: comment.body,
      created_at: comment.createdAt,
      updated_at: comment.createdAt,
      ...(comment.kind === "diff"
        ? {
            pull_request_review_id: Number(comment.thread),
            path: comment.path,
            diff_hunk: comment.diffHunk,
            position: comment.line,
            original_position: 0,
          }
        : {}),
    });
    const issueComments = /^\/issues\/(\d+)\/comments$/.exec(rest);
    if (issueComments && method === "GET") {
      const page = Number(query.get("page") ?? 1);
      const size = Number(query.get("limit") ?? 30);
      const all = forge.comments.filter(
        (comment) => comment.pull === Number(issueComments[1]) && comment.kind === "conversation",
      );
      return { status: 200, data: all.slice((page - 1) * size, page * size).map(giteaComment) };
    }
    if (issueComments && method === "POST") {
      const reply = postReply(forge, {
        pull: Number(issueComments[1]),
        body: String(body?.body),
        kind: "conversation",
      });
      return { status: 201, data: giteaComment(reply) };
    }
    const reviews = /^\/pulls\/(\d+)\/reviews$/.exec(rest);
    if (reviews && method === "GET") {
      const ids = new Set(
        forge.comments
          .filter((comment) => comment.pull === Number(reviews[1]) && comment.kind === "diff")
          .map((comment) => Number(comment.thread)),
      );
      return {
        status: 200,
        data: [...ids].map((id) => ({
          id,
          body: "",
          state: "COMMENT",
          user: user("reviewer"),
          comments_count: 1,
        })),
      };
    }
    const reviewComments = /^\/pulls\/(\d+)\/reviews\/(\d+)\/comments$/.exec(rest);
    if (reviewComments && method === "GET")
      return {
        status: 200,
        data: forge.comments
          .filter((comment) => comment.kind === "diff" && comment.thread === reviewComments[2])
          .map(giteaComment),
      };
    const match = /^\/pulls\/(\d+)$/.exec(rest);
    const found = match && requests.find((request) => request.number === Number(match[1]));
    if (found && method === "PATCH") {
      if (typeof body?.body === "string") found.body = body.body;
      return { status: 201, data: pull(found) };
    }
    const ci =
      options.ci &&
      answerGiteaCi(options.ci, method, rest, query, `http://127.0.0.1:${port}/${options.repository}`);
    if (ci) return ci;
    return { status: 404, data: { message: "The target couldn't be found.", errors: [] } };
  }, /\/pulls/);
  return finish(forge, server, port, "http://127.0.0.1:PORT/api/v1", limit);
}
