/**
 * Where a repository keeps its objects and its `info/exclude` (the loop's private git writes into the
 * one and copies the other: loop-repository.ts), asked of git once per process and repository: every
 * loop of a repository (the service runs many) shares the answer. The question that finds a loop's
 * repository before it runs (`repositoryCommitAt`) asks git for them in the same process, and leaves the
 * answer here. A failed answer is not kept.
 */
import { git } from "./git.ts";

export interface RepositoryPaths {
  /** The object store, absolute. */
  objects: string;
  /** The repository's `info/exclude`, absolute (it may not exist). */
  exclude: string;
}

/** `git rev-parse` arguments that print the two paths (with `--path-format=absolute` before them). */
export const repositoryPathArguments: readonly string[] = [
  "--git-path",
  "objects",
  "--git-path",
  "info/exclude",
];

const pathsByRoot = new Map<string, Promise<RepositoryPaths>>();

/** The paths of the repository whose top level is `root`: known already, or asked of git (one process). */
export function repositoryPaths(root: string): Promise<RepositoryPaths> {
  let paths = pathsByRoot.get(root);
  if (!paths) {
    paths = git(["rev-parse", "--path-format=absolute", ...repositoryPathArguments], root, {
      trim: true,
    }).then((output) => {
      const [objects, exclude] = output.split("\n");
      return { objects, exclude };
    });
    pathsByRoot.set(root, paths);
    paths.catch(() => pathsByRoot.delete(root));
  }
  return paths;
}

/**
 * Keeps what git answered to `repositoryPathArguments` for the repository whose top level is `root`
 * (an answer already kept stays: both came from git for the same repository).
 */
export function rememberRepositoryPaths(root: string, paths: RepositoryPaths): void {
  if (!pathsByRoot.has(root)) pathsByRoot.set(root, Promise.resolve(paths));
}
