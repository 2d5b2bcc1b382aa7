/**
 * `doctor`'s forge lines for the repository in the current folder: the push remote, the forge and API
 * it points to, where the token comes from and whether the forge accepts it. Also the warning about
 * tokens that do not re-trigger CI: on GitHub Actions, a push made with the workflow's own
 * `GITHUB_TOKEN` starts no workflow run, so a loop's pull request would get no checks.
 */
import { gitResult } from "../git/git.ts";
import { defaultRemote } from "../git/repository.ts";
import type { ForgeSettings } from "./forge-target.ts";
import { openForge } from "./open-forge.ts";

export interface ForgeCheck {
  ok: boolean;
  line: string;
  warnings: string[];
}

export async function checkForge(
  folder: string,
  settings: ForgeSettings & { ci?: unknown } = { forge: "auto" },
  env: Record<string, string | undefined> = process.env,
): Promise<ForgeCheck> {
  const top = await gitResult(["rev-parse", "--show-toplevel"], folder, { trim: true });
  if (top.code !== 0)
    return { ok: false, line: "forge: not in a git repository (nothing to check)", warnings: [] };
  const remote = await defaultRemote(top.stdout);
  if (!remote)
    return {
      ok: false,
      line: "forge: the repository has no remote (git remote add origin <url>)",
      warnings: [],
    };
  const url = await gitResult(["remote", "get-url", remote], top.stdout, { trim: true });
  const opened = await openForge(settings, url.stdout, { env, maxWaitMs: 10_000 });
  if ("problem" in opened)
    return { ok: false, line: `forge: remote ${remote}: ${opened.problem}`, warnings: [] };
  const problem = await opened.client.checkAccess();
  const where = `${opened.target.forge} ${opened.target.repository} at ${opened.target.api}, token from ${opened.tokenSource}`;
  return {
    ok: !problem,
    line: problem ? `forge: ${where}: ${problem}` : `forge: ${where}: can push and open pull requests`,
    warnings: ciTriggerWarnings(opened.target.forge, opened.tokenSource, env, settings.ci !== undefined),
  };
}

/** Tokens whose pushes start no CI run, said before a loop relies on CI. */
export function ciTriggerWarnings(
  forge: string,
  tokenSource: string,
  env: Record<string, string | undefined>,
  /** `finish.ci` is set: the loop would wait for checks that never start, then stop ci_failed. */
  ciWatched = false,
): string[] {
  if (forge === "github" && tokenSource === "GITHUB_TOKEN" && env.GITHUB_ACTIONS === "true")
    return [
      "pushes made with the workflow's own GITHUB_TOKEN do not start workflow runs: the pull request gets no checks. Use a GitHub App token or a fine-grained personal access token (contents and pull-requests write) in GITHUB_TOKEN",
      ...(ciWatched
        ? [
            "finish.ci is set: with the workflow's own GITHUB_TOKEN no check will start on the loop's pushes, so the watch waits finish.ci.wait and the loop stops ci_failed",
          ]
        : []),
    ];
  if (
    forge === "gitlab" &&
    tokenSource === "GITLAB_TOKEN" &&
    env.CI_JOB_TOKEN &&
    env.GITLAB_TOKEN === env.CI_JOB_TOKEN
  )
    return [
      "CI_JOB_TOKEN cannot open merge requests: set GITLAB_TOKEN to a project or personal access token with the api scope",
    ];
  return [];
}
