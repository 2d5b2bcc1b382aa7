/**
 * From a loop's `finish` settings and its remote to a ready client: resolve the forge, find its token,
 * build the client. Problems are sentences naming the fix, never thrown.
 */
import type { CiClient } from "./ci-checks.ts";
import type { ForgeClient, ForgeClientOptions } from "./forge-client.ts";
import { type ForgeSettings, type ForgeTarget, resolveForgeTarget } from "./forge-target.ts";
import { findForgeToken, missingTokenAdvice } from "./forge-token.ts";
import { giteaCi } from "./gitea-ci.ts";
import { giteaClient } from "./gitea-client.ts";
import { githubCi } from "./github-ci.ts";
import { githubClient } from "./github-client.ts";
import { gitlabCi } from "./gitlab-ci.ts";
import { gitlabClient } from "./gitlab-client.ts";

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
  const client =
    target.forge === "github"
      ? githubClient(clientOptions)
      : target.forge === "gitlab"
        ? gitlabClient(clientOptions)
        : giteaClient(clientOptions);
  const ci =
    target.forge === "github"
      ? githubCi(clientOptions)
      : target.forge === "gitlab"
        ? gitlabCi(clientOptions)
        : giteaCi(clientOptions);
  return { client, ci, target, tokenSource: token.source };
}
