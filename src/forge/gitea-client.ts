/**
 * Gitea and Forgejo (their API is the same for these endpoints) over `fetch`: no maintained Node client
 * exists for them, and four endpoints do not need one. Labels are given by name and resolved to the
 * repository's label ids; names the repository lacks are left out.
 */
import {
  type ForgeClient,
  type ForgeClientOptions,
  ForgeRequestError,
  type PullRequestReference,
} from "./forge-client.ts";
import { forgeFetch } from "./forge-fetch.ts";
import { giteaComments } from "./gitea-comments.ts";

interface GiteaPull {
  number: number;
  html_url: string;
  head: { ref: string };
  base: { ref: string };
}

export function giteaClient(options: ForgeClientOptions & { tokenSource: string }): ForgeClient {
  const repository = `${options.target.api}/repos/${options.target.repository}`;
  const describe = (status: number, detail: string) => {
    if (status === 401)
      return `Gitea refused the token from ${options.tokenSource} (401 ${detail}): renew it or set GITEA_TOKEN to a valid token`;
    if (status === 403)
      return `Gitea: the token from ${options.tokenSource} may not do this (403 ${detail}): give it the write:repository scope`;
    if (status === 404)
      return `Gitea: repository not found (404): check finish.repository and finish.api, and that the token from ${options.tokenSource} can see it`;
    if (status === 0) return `Gitea API unreachable: ${detail}`;
    return `Gitea API answered ${status}: ${detail}`;
  };
  const call = <T>(path: string, method?: "GET" | "POST" | "PATCH", body?: unknown) =>
    forgeFetch<T>(`${repository}${path}`, {
      method,
      body,
      headers: { authorization: `token ${options.token}`, "user-agent": "loopwright" },
      onWait: options.onWait && ((message) => options.onWait?.(`Gitea ${message}`)),
      maxWaitMs: options.maxWaitMs,
      describe,
    });
  const reference = (pull: GiteaPull): PullRequestReference => ({ number: pull.number, url: pull.html_url });
  return {
    forge: "gitea",
    comments: giteaComments(async (path, method, body) => {
      try {
        return await call(path, method, body);
      } catch (error) {
        if (error instanceof ForgeRequestError && error.status === 403 && path.includes("/permission"))
          throw new ForgeRequestError(
            403,
            `Gitea: the token from ${options.tokenSource} may not read collaborators' permissions: it needs the repository's admin role to tell who may ask for /loopwright rounds`,
          );
        throw error;
      }
    }),
    async checkAccess() {
      try {
        const data = await call<{ permissions?: { push?: boolean } }>("");
        if (data.permissions && !data.permissions.push)
          return `the Gitea token from ${options.tokenSource} cannot push to ${options.target.repository}: give it write access`;
        return undefined;
      } catch (error) {
        return (error as Error).message;
      }
    },
    async findOpen(head, base) {
      for (let page = 1; page <= 10; page++) {
        const pulls = await call<GiteaPull[]>(`/pulls?state=open&limit=50&page=${page}`);
        const pull = pulls.find((candidate) => candidate.head.ref === head && candidate.base.ref === base);
        if (pull) return reference(pull);
        if (pulls.length < 50) return undefined;
      }
      return undefined;
    },
    async create(request) {
      const labels = request.labels.length > 0 ? await labelIds(request.labels) : [];
      const pull = await call<GiteaPull>("/pulls", "POST", {
        head: request.head,
        base: request.base,
        // Gitea marks a pull request as work in progress by its title prefix.
        title: request.draft ? `WIP: ${request.title}` : request.title,
        body: request.body,
        ...(labels.length > 0 ? { labels } : {}),
      });
      return reference(pull);
    },
    async update(number, content) {
      return reference(await call<GiteaPull>(`/pulls/${number}`, "PATCH", { body: content.body }));
    },
  };

  async function labelIds(names: readonly string[]): Promise<number[]> {
    const labels = await call<{ id: number; name: string }[]>("/labels?limit=50");
    return labels.filter((label) => names.includes(label.name)).map((label) => label.id);
  }
}
