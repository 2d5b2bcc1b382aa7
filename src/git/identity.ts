/**
 * The committer identity loopwright falls back to when git has none: used only for what is missing,
 * passed with `-c` for one command, never written to any config.
 */

import { gitResult } from "./git.ts";

/** The fallback identity: `loopwright <loopwright@localhost>`. */
export const fallbackIdentity = { name: "loopwright", email: "loopwright@localhost" } as const;

/**
 * `-c user.name=…` / `-c user.email=…` arguments for whichever of the two is not configured for the
 * worktree (any config scope); empty when both are. Environment overrides (`GIT_AUTHOR_NAME`…) still win.
 */
export async function identityArguments(worktree: string): Promise<string[]> {
  const args: string[] = [];
  for (const [key, value] of [
    ["user.name", fallbackIdentity.name],
    ["user.email", fallbackIdentity.email],
  ]) {
    const configured = await gitResult(["config", "--get", key], worktree, { trim: true });
    if (configured.code !== 0 || configured.stdout === "") args.push("-c", `${key}=${value}`);
  }
  return args;
}
