/**
 * From a loop's `finish` settings and its remote to a ready client: resolve the forge, find its token,
 * build the client. Problems are sentences naming the fix, never thrown.
 */
import type { CiClient } from "./ci-checks.ts";
import type { ForgeClient, ForgeClientOptions } from "./forge-client.ts";
import { type ForgeSettings, type ForgeTarget, resolveForgeTarget } from "./forge-target.ts";
import { findForgeToken, missingTokenAdvice } from "./forge-token.ts";

export type OpenedForge =
  | { client: ForgeClient; ci: CiClient; target: ForgeTarget; tokenSource: string }
  | { problem: string };

export async function openForge(
  settings: ForgeSettings,
  remoteUrl: string | undefined,
  options: {
    env?: Record<string, string | undefined>;
    onWait?: ForgeClientOptions["onWait"];
    maxWaitMs?: number;
  } = {},
): Promise<OpenedForge> {
  const env = options.env ?? process.env;
  const resolved = resolveForgeTarget(settings, remoteUrl, env);
  if ("problem" in resolved) return resolved;
  const { target } = resolved;
  const token = await findForgeToken(target.forge, target.api, env);
  if (!token) return { problem: missingTokenAdvice(target.forge) };
  const clientOptions = {
    target,
    token: token.token,
    tokenSource: token.source,
    onWait: options.onWait,
    maxWaitMs: options.maxWaitMs,
  };
  // Each client (octokit, gitbeaker) loads only when its forge is used: `run` and `validate` reach here.
  const client =
    target.forge === "github"
      ? (await import("./github-client.ts")).githubClient(clientOptions)
      : target.forge === "gitlab"
        ? (await import("./gitlab-client.ts")).gitlabClient(clientOptions)
        : (await import("./gitea-client.ts")).giteaClient(clientOptions);
  const ci =
    target.forge === "github"
      ? (await import("./github-ci.ts")).githubCi(clientOptions)
      : target.forge === "gitlab"
        ? (await import("./gitlab-ci.ts")).gitlabCi(clientOptions)
        : (await import("./gitea-ci.ts")).giteaCi(clientOptions);
  return { client, ci, target, tokenSource: token.source };
}
