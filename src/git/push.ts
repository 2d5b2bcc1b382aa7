/**
 * Pushing a loop's branch when it is verified. A failed push is an outcome to report, not an error.
 */

import { gitResult } from "./git.ts";

/** The default limit of one push: 2 minutes. */
export const defaultPushTimeoutMs = 120_000;

/** What a push did; `error` is git's own account, a few lines at most, when it did not push. */
export interface PushOutcome {
  pushed: boolean;
  error?: string;
}

/**
 * Pushes the local branch `branch` to the same name on `remote` (no force, no upstream written to the
 * config). Never prompts (no terminal, no credential prompt) and never throws for a push failure: a
 * rejected push, a missing remote, an authentication failure or a timeout (`timeoutMs`, default 2
 * minutes) come back as `{ pushed: false, error }`. No hook runs (`--no-verify`, and no hooks for any
 * loopwright command): loopwright pushes only `refs/heads/<branch>`, the ref it owns.
 */
export async function pushBranch(
  root: string,
  remote: string,
  branch: string,
  options: { timeoutMs?: number } = {},
): Promise<PushOutcome> {
  const timeoutMs = options.timeoutMs ?? defaultPushTimeoutMs;
  if (remote === "" || remote.startsWith("-")) return { pushed: false, error: `invalid remote '${remote}'` };
  const refspec = `refs/heads/${branch}:refs/heads/${branch}`;
  const result = await gitResult(
    ["push", "--quiet", "--no-verify", "--no-recurse-submodules", remote, refspec],
    root,
    {
      timeoutMs,
      env: await nonInteractiveEnvironment(root),
    },
  );
  if (result.code === 0) return { pushed: true };
  if (result.timedOut)
    return { pushed: false, error: `push to ${remote} timed out after ${timeoutMs / 1000}s` };
  return { pushed: false, error: pushError(result.stderr) || `git push exited with code ${result.code}` };
}

/**
 * Keeps ssh and credential managers from asking anything: ssh in batch mode unless the user chose
 * their own ssh command (then it is theirs to configure), Git Credential Manager non-interactive.
 */
async function nonInteractiveEnvironment(root: string): Promise<Record<string, string>> {
  const env: Record<string, string> = { GCM_INTERACTIVE: "never" };
  if (process.env.GIT_SSH_COMMAND || process.env.GIT_SSH) return env;
  const configured = await gitResult(["config", "--get", "core.sshCommand"], root);
  if (configured.code !== 0) env.GIT_SSH_COMMAND = "ssh -o BatchMode=yes";
  return env;
}

/** git's error lines without hints and advice, bounded. */
function pushError(stderr: string): string {
  const lines = stderr
    .split("\n")
    .map((line) => line.trimEnd())
    .filter((line) => line.trim() !== "" && !line.startsWith("hint:") && !line.startsWith("To "));
  const text = lines.slice(0, 6).join("\n");
  return text.length > 1000 ? `${text.slice(0, 1000)}…` : text;
}
