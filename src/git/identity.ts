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
  // One git run for both keys (each commit asks): `--get-regexp` lists every value; the last one wins, as with `--get`.
  const listed = await gitResult(["config", "--get-regexp", "^user\\.(name|email)$"], worktree, {
    trim: true,
  });
  const configured = new Map<string, string>();
  if (listed.code === 0) {
    for (const line of listed.stdout.split("\n")) {
      const space = line.indexOf(" ");
      if (space > 0) configured.set(line.slice(0, space), line.slice(space + 1).trim());
    }
  }
  const args: string[] = [];
  for (const [key, value] of [
    ["user.name", fallbackIdentity.name],
    ["user.email", fallbackIdentity.email],
  ]) {
    if (!configured.get(key)) args.push("-c", `${key}=${value}`);
  }
  return args;
}
