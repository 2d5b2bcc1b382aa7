/**
 * GitLab (gitlab.com and self-hosted, also on a path prefix) through @gitbeaker/rest. Merge requests
 * stand for pull requests; `number` is the merge request's iid. A draft is marked by the `Draft:`
 * title prefix, as GitLab does. Rate limits are waited out by gitlab-requester.ts.
 */
import { Gitlab } from "@gitbeaker/rest";
import { type ForgeClient, type ForgeClientOptions, ForgeRequestError } from "./forge-client.ts";
import { gitlabComments } from "./gitlab-comments.ts";
import { gitlabRequester } from "./gitlab-requester.ts";

export function gitlabClient(options: ForgeClientOptions & { tokenSource: string }): ForgeClient {
  const api = gitlabApi(options);
  const project = options.target.repository;
  const fail = (error: unknown): never => {
    throw asForgeError(error, options.tokenSource);
  };
  const reference = (request: { iid: number; web_url: string }) => ({
    number: request.iid,
    url: request.web_url,
  });
  const webUrls = new Map<number, string>();
  const webUrl = async (number: number) => {
    if (!webUrls.has(number)) {
      const shown = (await api.MergeRequests.show(project, number).catch(fail)) as { web_url: string };
      webUrls.set(number, shown.web_url);
    }
    return webUrls.get(number);
  };
  return {
    forge: "gitlab",
    comments: gitlabComments(api, project, webUrl, fail),
    async checkAccess() {
      try {
        const data = (await api.Projects.show(project)) as {
          permissions?: Record<string, { access_level?: number } | null>;
        };
        const levels = Object.values(data.permissions ?? {}).map((access) => access?.access_level ?? 0);
        if (data.permissions && Math.max(0, ...levels) < 30)
          return `the GitLab token from ${options.tokenSource} cannot push to ${project}: it needs the Developer role`;
        return undefined;
      } catch (error) {
        return asForgeError(error, options.tokenSource).message;
      }
    },
    async findOpen(head, base) {
      const found = await api.MergeRequests.all({
        projectId: project,
        state: "opened",
        sourceBranch: head,
        targetBranch: base,
      }).catch(fail);
      const request = found.find((candidate) => candidate.source_branch === head);
      return request ? reference(request as { iid: number; web_url: string }) : undefined;
    },
    async create(request) {
      const created = await api.MergeRequests.create(
        project,
        request.head,
        request.base,
        request.draft ? `Draft: ${request.title}` : request.title,
        {
          description: request.body,
          ...(request.labels.length > 0 ? { labels: request.labels.join(",") } : {}),
        },
      ).catch(fail);
      return reference(created as { iid: number; web_url: string });
    },
    async update(number, content) {
      const edited = await api.MergeRequests.edit(project, number, { description: content.body }).catch(fail);
      return reference(edited as { iid: number; web_url: string });
    },
  };
}

/** Gitbeaker on the target's host (a path prefix kept), with loopwright's rate-limit-aware requester. */
export function gitlabApi(options: ForgeClientOptions) {
  return new Gitlab({
    host: options.target.api.replace(/\/api\/v4$/, ""),
    token: options.token,
    queryTimeout: 60_000,
    requesterFn: gitlabRequester({ onWait: options.onWait, maxWaitMs: options.maxWaitMs }),
  });
}

export function asForgeError(error: unknown, tokenSource: string): ForgeRequestError {
  const response = (error as { cause?: { response?: Response } })?.cause?.response;
  const status = response?.status ?? 0;
  const detail = error instanceof Error ? error.message.split("\n")[0] : String(error);
  if (status === 401)
    return new ForgeRequestError(
      status,
      `GitLab refused the token from ${tokenSource} (401 ${detail}): renew it or set GITLAB_TOKEN to a valid token with the api scope`,
    );
  if (status === 403)
    return new ForgeRequestError(
      status,
      `GitLab: the token from ${tokenSource} may not do this (403 ${detail}): it needs the api scope and the Developer role`,
    );
  if (status === 404)
    return new ForgeRequestError(
      status,
      `GitLab: project not found (404): check finish.repository and finish.api, and that the token from ${tokenSource} can see it`,
    );
  if (status === 0) return new ForgeRequestError(0, `GitLab API unreachable: ${detail}`);
  return new ForgeRequestError(status, `GitLab API answered ${status}: ${detail}`);
}
