/**
 * Which checkout of a repository has a branch checked out, read from the files git keeps for it: the
 * HEAD of the main checkout (`.git/HEAD`) and of each linked worktree (`.git/worktrees/<id>/HEAD`, its
 * folder named by `.git/worktrees/<id>/gitdir`), as `git worktree list` reads them. Spares that git
 * process where the answer is a few small files away; anything unusual is left to git.
 */
import { basename, dirname, isAbsolute, join } from "node:path";
import { lstatSync, readdirSync, readFileSync } from "../files/node-fs.ts";
import { isAscii, isOwnGitDirectory, isPlainBranchPath } from "./ref-files.ts";

/** A full object name, SHA-1 or SHA-256 (a detached HEAD). */
const objectName = /^(?:[0-9a-f]{40}|[0-9a-f]{64})$/;

/**
 * `{ holder }`: the checkout (main or linked) whose HEAD names `refs/heads/<branch>`, unborn or not, or
 * `{ holder: undefined }` when none does. Undefined when the files cannot tell for sure: `root` has no
 * `.git` folder (a bare repository, a separate git directory), a reftable, a HEAD that is not a regular
 * file (a symbolic link, a FIFO) or is neither a symbolic ref nor a commit, a worktree's `gitdir` that does not name a `.git` in its folder,
 * a file it cannot read, a name that is not a plain branch path: ask git then (`checkedOutAt`).
 */
export function branchHolderFromFiles(
  root: string,
  branch: string,
): { holder: string | undefined } | undefined {
  // The files are compared as bytes read one per character: a name beyond ASCII is git's to match.
  if (!isPlainBranchPath(branch) || !isAscii(branch)) return undefined;
  const dotGit = join(root, ".git");
  const wanted = `refs/heads/${branch}`;
  try {
    if (!isOwnGitDirectory(dotGit)) return undefined;
    const main = headOf(join(dotGit, "HEAD"));
    if (main === undefined) return undefined;
    if (main === wanted) return { holder: root };
    const worktrees = join(dotGit, "worktrees");
    if (!lstatSync(worktrees, { throwIfNoEntry: false })) return { holder: undefined };
    for (const id of readdirSync(worktrees)) {
      const head = headOf(join(worktrees, id, "HEAD"));
      if (head === undefined) return undefined;
      if (head !== wanted) continue;
      const gitDirectoryFile = join(worktrees, id, "gitdir");
      if (!lstatSync(gitDirectoryFile).isFile()) return undefined;
      const gitDirectory = readFileSync(gitDirectoryFile, "utf8").trim();
      if (!isAbsolute(gitDirectory) || basename(gitDirectory) !== ".git") return undefined;
      return { holder: dirname(gitDirectory) };
    }
    return { holder: undefined };
  } catch {
    return undefined;
  }
}

/** The ref a HEAD file names (`refs/heads/...`), or its commit when detached; undefined when unusual. */
function headOf(path: string): string | undefined {
  // A HEAD that is a symbolic link is the old form of a symbolic ref: git reads it, not this. Only a
  // regular file is read (a FIFO would hang the read).
  if (!lstatSync(path).isFile()) return undefined;
  const text = readFileSync(path, "latin1").trim();
  if (!isAscii(text)) return undefined;
  if (text.startsWith("ref:")) {
    const ref = text.slice("ref:".length).trim();
    return ref.startsWith("refs/") && !/\s/.test(ref) ? ref : undefined;
  }
  return objectName.test(text) ? text : undefined;
}
