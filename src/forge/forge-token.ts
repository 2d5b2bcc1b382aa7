/**
 * The token a forge's API is called with, from the places its users keep it: GitHub `GITHUB_TOKEN`, then
 * `GH_TOKEN`, then `gh auth token` for the API's host; GitLab `GITLAB_TOKEN`; Gitea and Forgejo
 * `GITEA_TOKEN`, then `FORGEJO_TOKEN`. Never printed.
 */
import { findExecutable } from "../process/find-executable.ts";
import type { ForgeKind } from "./forge-target.ts";

export interface ForgeToken {
  token: string;
  /** Where it came from, for messages (`GITHUB_TOKEN`, `gh auth token`). */
  source: string;
}

/** The variables a token is read from, in order, per forge. */
export const tokenVariables: Record<ForgeKind, readonly string[]> = {
  github: ["GITHUB_TOKEN", "GH_TOKEN"],
  gitlab: ["GITLAB_TOKEN"],
  gitea: ["GITEA_TOKEN", "FORGEJO_TOKEN"],
};

/** The token for `forge`, or undefined when none of its places holds one. */
export async function findForgeToken(
  forge: ForgeKind,
  api: string,
  env: Record<string, string | undefined> = process.env,
): Promise<ForgeToken | undefined> {
  for (const name of tokenVariables[forge]) {
    const value = env[name]?.trim();
    if (value) return { token: value, source: name };
  }
  if (forge !== "github") return undefined;
  const token = await ghAuthToken(api, env);
  return token ? { token, source: "gh auth token" } : undefined;
}

/** What to do when there is no token: one sentence naming the variable. */
export function missingTokenAdvice(forge: ForgeKind): string {
  const names = tokenVariables[forge].join(" or ");
  return forge === "github"
    ? `no GitHub token: set ${names}, or sign in with gh auth login`
    : `no ${forge === "gitlab" ? "GitLab" : "Gitea/Forgejo"} token: set ${names}`;
}

function ghAuthToken(api: string, env: Record<string, string | undefined>): Promise<string | undefined> {
  const gh = findExecutable("gh", env as NodeJS.ProcessEnv);
  if (!gh) return Promise.resolve(undefined);
  const host = new URL(api).hostname === "api.github.com" ? "github.com" : new URL(api).hostname;
  // node:child_process is taken here: a read-only command (validate's forge check) loads this module,
  // and it is no use until gh runs.
  const { execFile } = process.getBuiltinModule("node:child_process");
  return new Promise((resolve) => {
    execFile(
      gh,
      ["auth", "token", "--hostname", host],
      { timeout: 10_000, env: env as NodeJS.ProcessEnv },
      (error, stdout) => resolve(error ? undefined : stdout.trim() || undefined),
    );
  });
}
