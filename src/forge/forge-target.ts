/**
 * Which forge a loop's pull request goes to, and where its API is: from the spec's `finish` fields, the
 * forge's usual environment variables, and the remote's URL, in that order. Pure.
 */

export const forgeKinds = ["github", "gitlab", "gitea"] as const;
export type ForgeKind = (typeof forgeKinds)[number];

/** A resolved forge: its kind, the API's base URL (no trailing slash) and the repository's path on it. */
export interface ForgeTarget {
  forge: ForgeKind;
  /** GitHub: `https://api.github.com` or `https://host/api/v3`; GitLab: `…/api/v4`; Gitea: `…/api/v1`. */
  api: string;
  /** `owner/name` (GitLab: `group/subgroup/name`). */
  repository: string;
}

export interface ForgeSettings {
  forge: "auto" | ForgeKind;
  api?: string;
  repository?: string;
}

/** The host, optional port and path of a remote URL (https, ssh, scp-like); undefined for a local path. */
export interface RemoteAddress {
  scheme: "https" | "http" | "ssh";
  host: string;
  port?: string;
  path: string;
}

export function parseRemoteUrl(url: string): RemoteAddress | undefined {
  const standard = /^(https?|ssh|git):\/\/(?:[^@/]+@)?([^/:]+)(?::(\d+))?\/(.+)$/.exec(url);
  if (standard) {
    const scheme = standard[1] === "git" ? "ssh" : (standard[1] as RemoteAddress["scheme"]);
    return { scheme, host: standard[2], port: standard[3], path: trimPath(standard[4]) };
  }
  const scpLike = /^(?:[^@/]+@)?([^/:]+):(?!\/)(.+)$/.exec(url);
  if (scpLike && !url.startsWith("/") && !/^[A-Za-z]:[\\/]/.test(url))
    return { scheme: "ssh", host: scpLike[1], path: trimPath(scpLike[2]) };
  return undefined;
}

function trimPath(path: string): string {
  return path.replace(/\/+$/, "").replace(/\.git$/, "");
}

/**
 * Resolves the forge, its API and the repository; a problem says which field or variable to set when
 * something cannot be told. `remoteUrl` is the push remote's URL (undefined without a remote).
 */
export function resolveForgeTarget(
  settings: ForgeSettings,
  remoteUrl: string | undefined,
  env: Record<string, string | undefined>,
): { target: ForgeTarget } | { problem: string } {
  const remote = remoteUrl ? parseRemoteUrl(remoteUrl) : undefined;
  const forge = settings.forge === "auto" ? guessForge(remote, env) : settings.forge;
  if (!forge)
    return {
      problem: `cannot tell the forge from the remote URL ${remoteUrl ?? "(no remote)"}: set finish.forge (github, gitlab or gitea)`,
    };
  const api = (
    settings.api ??
    environmentApi(forge, env) ??
    (remote && apiFromRemote(forge, remote))
  )?.replace(/\/+$/, "");
  if (!api)
    return {
      problem: `cannot tell the ${forge} API address from the remote URL ${remoteUrl ?? "(no remote)"}: set finish.api`,
    };
  if (!/^https?:\/\//.test(api)) return { problem: `finish.api: not an http(s) URL: ${api}` };
  const repository = settings.repository ?? environmentRepository(forge, env) ?? remote?.path;
  if (!repository || !/^[^/\s]+(\/[^/\s]+)+$/.test(repository))
    return {
      problem: `cannot tell the repository from the remote URL ${remoteUrl ?? "(no remote)"}: set finish.repository (owner/name)`,
    };
  return { target: { forge, api, repository } };
}

function guessForge(
  remote: RemoteAddress | undefined,
  env: Record<string, string | undefined>,
): ForgeKind | undefined {
  const host = remote?.host.toLowerCase();
  if (host === "github.com" || host?.endsWith(".ghe.com")) return "github";
  if (host?.includes("gitlab")) return "gitlab";
  if (host && /gitea|forgejo|codeberg/.test(host)) return "gitea";
  if (host && env.GITHUB_SERVER_URL && new URL(env.GITHUB_SERVER_URL).hostname === host) return "github";
  if (host && env.CI_SERVER_HOST === host) return "gitlab";
  if (host?.startsWith("github.")) return "github";
  return undefined;
}

function environmentApi(forge: ForgeKind, env: Record<string, string | undefined>): string | undefined {
  if (forge === "github") return env.GITHUB_API_URL || undefined;
  if (forge === "gitlab") return env.CI_API_V4_URL || undefined;
  return env.GITEA_API_URL || undefined;
}

function environmentRepository(
  forge: ForgeKind,
  env: Record<string, string | undefined>,
): string | undefined {
  if (forge === "github") return env.GITHUB_REPOSITORY || undefined;
  if (forge === "gitlab") return env.CI_PROJECT_PATH || undefined;
  return undefined;
}

/** GitHub.com, GitHub Enterprise Server (`/api/v3`), GitLab (`/api/v4`), Gitea and Forgejo (`/api/v1`). */
function apiFromRemote(forge: ForgeKind, remote: RemoteAddress): string {
  const scheme = remote.scheme === "http" ? "http" : "https";
  // An ssh port is not the web port; an https remote's port is.
  const origin = `${scheme}://${remote.host}${remote.scheme !== "ssh" && remote.port ? `:${remote.port}` : ""}`;
  if (forge === "github") return remote.host === "github.com" ? "https://api.github.com" : `${origin}/api/v3`;
  return `${origin}/api/${forge === "gitlab" ? "v4" : "v1"}`;
}
