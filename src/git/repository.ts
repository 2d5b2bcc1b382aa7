/**
 * Finding the repository a loop is bound to, and answering questions about its refs. Read-only: nothing
 * here changes the user's checkout.
 */

import { join, resolve } from "node:path";
import { UsageError } from "../errors.ts";
import { realpathSync, statSync } from "../files/node-fs.ts";
import { firstErrorLine, git, gitResult } from "./git.ts";
import { plainRepositoryAt } from "./plain-repository.ts";
import { rememberRepositoryPaths, repositoryPathArguments } from "./repository-paths.ts";

/** Where a repository lives. */
export interface Repository {
  /**
   * The top level of the MAIN worktree, even when the path given was inside a linked worktree. For a
   * bare repository (worktrees hanging off a bare clone) it is the bare repository folder itself.
   */
  root: string;
  /** The absolute git directory shared by all worktrees (`.git` of the main worktree, usually). */
  commonDirectory: string;
}

/**
 * Resolves any path inside a repository (its checkout, a subfolder, a linked worktree) to the
 * repository. Throws `UsageError` `not a git repository: <path>` when the path does not exist or is not
 * inside a git repository (git's own reason is appended when it is not the usual one).
 */
export async function resolveRepository(path: string): Promise<Repository> {
  const absolute = resolve(path);
  // Synchronous file reads: node:fs/promises stays off the read-only commands.
  if (!(statSync(absolute, { throwIfNoEntry: false })?.isDirectory() ?? false))
    throw new UsageError(`not a git repository: ${path}`);
  // The usual case without a git process; anything unusual is git's to answer.
  const plain = plainRepositoryAt(absolute);
  if (plain) return plain;
  const probed = await mainWorktreeAt(absolute);
  if (probed) return probed;
  const common = await gitResult(["rev-parse", "--git-common-dir"], absolute, { trim: true });
  if (common.code !== 0) {
    const reason = firstErrorLine(common.stderr);
    const detail = reason === "" || /not a git repository/i.test(reason) ? "" : ` (${reason})`;
    throw new UsageError(`not a git repository: ${path}${detail}`);
  }
  const commonDirectory = realpathSync(resolve(absolute, common.stdout));
  const listing = await git(["worktree", "list", "--porcelain"], absolute);
  // The first entry is always the main worktree; a bare main repository is marked `bare`.
  const [mainEntry] = listing.split("\n\n");
  const lines = mainEntry.split("\n");
  const worktreeLine = lines.find((line) => line.startsWith("worktree "));
  const isBare = lines.includes("bare");
  const root = worktreeLine && !isBare ? worktreeLine.slice("worktree ".length) : commonDirectory;
  return { root, commonDirectory };
}

/**
 * The usual case in ONE git process (every read-only command starts here): `path` is in the main
 * worktree of a non-bare repository whose git directory is `<top level>/.git`. That is exactly when
 * `worktree list` would name this top level first; anything else (a linked worktree, a bare
 * repository, a separate git directory, inside `.git`, no repository) is undefined and takes the
 * general path, which also words the errors.
 */
async function mainWorktreeAt(absolute: string): Promise<Repository | undefined> {
  const probe = await gitResult(
    ["rev-parse", "--path-format=absolute", "--git-common-dir", "--git-dir", "--show-toplevel"],
    absolute,
    { trim: true },
  );
  if (probe.code !== 0) return undefined;
  const [common, gitDirectory, top] = probe.stdout.split("\n");
  if (!common || common !== gitDirectory || !top) return undefined;
  const commonDirectory = realpathSync(common);
  return commonDirectory === join(top, ".git") ? { root: top, commonDirectory } : undefined;
}

/**
 * Resolves a commit-ish (branch, tag, SHA, `HEAD~2`) to a full commit SHA. Throws `UsageError`
 * `unknown base '<x>' in <root>` when it names no commit, with a note when the repository has no
 * commits at all yet.
 */
export async function resolveCommit(root: string, commitish: string): Promise<string> {
  const unknown = `unknown base '${commitish}' in ${root}`;
  if (commitish === "" || commitish.startsWith("-")) throw new UsageError(unknown);
  const result = await gitResult(["rev-parse", "--verify", "--quiet", `${commitish}^{commit}`], root, {
    trim: true,
  });
  if (result.code === 0) return result.stdout;
  const anyCommit = await gitResult(["rev-list", "-n", "1", "--all"], root, { trim: true });
  if (anyCommit.code !== 0 || anyCommit.stdout === "") {
    throw new UsageError(`${unknown}: the repository has no commits yet (make a first commit)`);
  }
  throw new UsageError(unknown);
}

/**
 * What `resolveRepository(path)` and `resolveCommit(root, commitish)` would answer, in ONE git process,
 * in the usual case: `path` in the main worktree of a repository whose git directory is
 * `<top level>/.git` (as in `mainWorktreeAt`) and `commitish` naming a commit there. Undefined for
 * anything else: the caller takes the two calls, which also word the errors.
 */
export async function repositoryCommitAt(
  path: string,
  commitish: string,
): Promise<(Repository & { commit: string }) | undefined> {
  const absolute = resolve(path);
  const isDirectory = statSync(absolute, { throwIfNoEntry: false })?.isDirectory() ?? false;
  if (isDirectory && commitish !== "" && !commitish.startsWith("-")) {
    const probe = await gitResult(
      [
        "rev-parse",
        "--path-format=absolute",
        "--git-common-dir",
        "--git-dir",
        "--show-toplevel",
        // Where the loop's private git finds the objects and the exclude file: asked here, not again.
        ...repositoryPathArguments,
        "--verify",
        "--quiet",
        `${commitish}^{commit}`,
      ],
      absolute,
      { trim: true },
    );
    const [common, gitDirectory, top, objects, exclude, commit] =
      probe.code === 0 ? probe.stdout.split("\n") : [];
    if (common && common === gitDirectory && top && objects && exclude && commit) {
      const commonDirectory = realpathSync(common);
      if (commonDirectory === join(top, ".git")) {
        rememberRepositoryPaths(top, { objects, exclude });
        return { root: top, commonDirectory, commit };
      }
    }
  }
  return undefined;
}

/** True when the local branch `refs/heads/<branch>` exists. */
export async function branchExists(root: string, branch: string): Promise<boolean> {
  const result = await gitResult(["show-ref", "--verify", "--quiet", `refs/heads/${branch}`], root);
  return result.code === 0;
}

/**
 * The remote to push to: the remote of the current branch's upstream, else `origin`, else the only
 * remote; undefined when there is no remote or no way to choose.
 */
export async function defaultRemote(root: string): Promise<string | undefined> {
  const remotes = (await git(["remote"], root))
    .split("\n")
    .map((line) => line.trim())
    .filter((line) => line !== "");
  const branch = await gitResult(["symbolic-ref", "--quiet", "--short", "HEAD"], root, { trim: true });
  if (branch.code === 0) {
    const upstream = await gitResult(["config", "--get", `branch.${branch.stdout}.remote`], root, {
      trim: true,
    });
    if (upstream.code === 0 && remotes.includes(upstream.stdout)) return upstream.stdout;
  }
  if (remotes.includes("origin")) return "origin";
  return remotes.length === 1 ? remotes[0] : undefined;
}
