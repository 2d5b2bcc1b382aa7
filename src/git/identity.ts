/**
 * The committer identity loopwright falls back to when git has none: used only for what is missing,
 * passed with `-c` for one command, never written to any config.
 */

import { gitResult } from "./git.ts";

/** The fallback identity: `loopwright <loopwright@localhost>`. */
export const fallbackIdentity = { name: "loopwright", email: "loopwright@localhost" } as const;

/** Identity arguments per worktree, looked up once per process: a loop commits every iteration. */
const remembered = new Map<string, Promise<string[]>>();

/**
 * `-c user.name=…` / `-c user.email=…` arguments for whichever of the two is not configured for the
 * worktree (any config scope); empty when both are. Environment overrides (`GIT_AUTHOR_NAME`…) still win.
 * The answer is remembered for the life of the process (a config edited mid-run applies on the next run).
 */
export function identityArguments(worktree: string): Promise<string[]> {
  let found = remembered.get(worktree);
  if (!found) {
    found = lookUpIdentity(worktree);
    remembered.set(worktree, found);
    found.catch(() => remembered.delete(worktree));
  }
  return found;
}

async function lookUpIdentity(worktree: string): Promise<string[]> {
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
