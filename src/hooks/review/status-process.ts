/**
 * The one `git status` a stop (and a prompt with open work) reads the working tree from, started as
 * soon as the hook knows its checkout: git runs while the hook's handler loads, instead of after.
 */
import { type GitResult, gitResult } from "../../git/git.ts";

/** `git status --porcelain=v2 -z --branch`, every untracked file, no renames, no optional locks. */
export function startStatus(root: string): Promise<GitResult> {
  const status = gitResult(
    [
      "--no-optional-locks",
      "status",
      "--porcelain=v2",
      "-z",
      "--branch",
      "--untracked-files=all",
      "--no-renames",
    ],
    root,
  );
  // Awaited by whoever reads it; a hook that fails before then must not die of an unhandled rejection.
  status.catch(() => {});
  return status;
}
