/**
 * GitHub (github.com and GitHub Enterprise Server) through Octokit, with its retry plugin (server
 * errors) and throttling plugin (403/429 rate limits waited out up to `maxWaitMs`, each wait reported).
 */
import {
  type ForgeClient,
  type ForgeClientOptions,
  ForgeRequestError,
  type PullRequestReference,
} from "./forge-client.ts";
import { githubComments } from "./github-comments.ts";
import { githubOctokit } from "./github-octokit.ts";

export function githubClient(options: ForgeClientOptions & { tokenSource: string }): ForgeClient {
  const [owner, repo] = splitRepository(options.target.repository);
  const octokit = githubOctokit(options);
  const fail = (error: unknown): never => {
    throw asForgeError(error, options.tokenSource);
  };
  const reference = (pull: { number: number; html_url: string }): PullRequestReference => ({
    number: pull.number,
    url: pull.html_url,
  });
  return {
    forge: "github",
    comments: githubComments(octokit, owner, repo, fail),
    async checkAccess() {
      try {
        const { data } = await octokit.rest.repos.get({ owner, repo });
        if (data.permissions && !data.permissions.push)
          return `the GitHub token from ${options.tokenSource} cannot push to ${options.target.repository}: give it write access`;
        return undefined;
      } catch (error) {
        return asForgeError(error, options.tokenSource).message;
      }
    },
    async findOpen(head, base) {
      const { data } = await octokit.rest.pulls
        .list({ owner, repo, state: "open", head: `${owner}:${head}`, base, per_page: 10 })
        .catch(fail);
      const pull = data.find((candidate) => candidate.head.ref === head);
      return pull ? reference(pull) : undefined;
    },
    async create(request) {
      const { data } = await octokit.rest.pulls
        .create({
          owner,
          repo,
          head: request.head,
          base: request.base,
          title: request.title,
          body: request.body,
          draft: request.draft,
        })
        .catch(fail);
      if (request.labels.length > 0)
        await octokit.rest.issues
          .addLabels({ owner, repo, issue_number: data.number, labels: [...request.labels] })
          .catch(fail);
      return reference(data);
    },
    async update(number, content) {
      const { data } = await octokit.rest.pulls
        .update({ owner, repo, pull_number: number, title: content.title, body: content.body })
        .catch(fail);
      return reference(data);
    },
  };
}

export function splitRepository(repository: string): [string, string] {
  const slash = repository.indexOf("/");
  return [repository.slice(0, slash), repository.slice(slash + 1)];
}

/** Octokit's RequestError (or a network failure) as a ForgeRequestError with advice for the user. */
export function asForgeError(error: unknown, tokenSource: string): ForgeRequestError {
  const status =
    typeof (error as { status?: unknown })?.status === "number" ? (error as { status: number }).status : 0;
  const detail = error instanceof Error ? error.message.split("\n")[0] : String(error);
  if (status === 401)
    return new ForgeRequestError(
      status,
      `GitHub refused the token from ${tokenSource} (401 ${detail}): renew it or set GITHUB_TOKEN to a valid token`,
    );
  if (status === 403)
    return new ForgeRequestError(
      status,
      `GitHub: the token from ${tokenSource} may not do this (403 ${detail}): give it contents and pull-requests write access`,
    );
  if (status === 404)
    return new ForgeRequestError(
      status,
      `GitHub: repository not found (404): check finish.repository and finish.api, and that the token from ${tokenSource} can see it`,
    );
  if (status === 0) return new ForgeRequestError(0, `GitHub API unreachable: ${detail}`);
  return new ForgeRequestError(status, `GitHub API answered ${status}: ${detail}`);
}
