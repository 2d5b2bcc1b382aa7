/**
 * Which of a few local branches exist, and which branch the main checkout's HEAD names, read from the
 * files git keeps them in (loose ref files, `packed-refs`, `.git/HEAD`) where they can tell for sure:
 * what a new loop asks before it is recorded, without a git process in the usual case. Anything unusual
 * (a reftable, a symbolic or unreadable ref, a HEAD that is neither a branch nor a commit) is git's.
 */
import { join } from "node:path";
import { lstatSync, readFileSync } from "../files/node-fs.ts";
import { isAscii, isOwnGitDirectory, isPlainBranchPath } from "./ref-files.ts";

/** A full object name, SHA-1 or SHA-256. */
const objectName = /^(?:[0-9a-f]{40}|[0-9a-f]{64})$/;

export interface LocalBranchFiles {
  /** The names asked that are local branches (`refs/heads/<name>` exists, loose or packed). */
  existing: ReadonlySet<string>;
  /** The branch the main checkout's HEAD names (born or not, as `symbolic-ref` says); undefined when detached. */
  head?: string;
}

/**
 * Answers for `names` (a name that cannot be a branch, `main~1` say, is simply not one) from the files of
 * the repository whose main checkout is `root`; undefined when the files cannot tell for sure.
 */
export function localBranchesFromFiles(root: string, names: readonly string[]): LocalBranchFiles | undefined {
  const dotGit = join(root, ".git");
  // The files are compared as bytes read one per character: a name beyond ASCII is git's to match.
  if (!names.every(isAscii)) return undefined;
  try {
    if (!isOwnGitDirectory(dotGit)) return undefined;
    const head = headBranch(join(dotGit, "HEAD"));
    if (head === undefined) return undefined;
    let packed: string[] | undefined;
    const existing = new Set<string>();
    for (const name of names) {
      if (!isPlainBranchPath(name)) continue;
      const loosePath = join(dotGit, "refs", "heads", ...name.split("/"));
      const loose = lstatIfThere(loosePath);
      if (loose) {
        // A regular file holding a commit is the branch; a symbolic ref, a folder, anything else is git's.
        if (!loose.isFile()) return undefined;
        const text = readFileSync(loosePath, "latin1").trim();
        if (!objectName.test(text)) return undefined;
        existing.add(name);
        continue;
      }
      packed ??= packedLines(join(dotGit, "packed-refs"));
      if (packed === undefined) return undefined;
      const suffix = ` refs/heads/${name}`;
      if (packed.some((line) => line.endsWith(suffix) && objectName.test(line.slice(0, -suffix.length))))
        existing.add(name);
    }
    return { existing, ...(head.branch !== undefined ? { head: head.branch } : {}) };
  } catch {
    return undefined;
  }
}

/** The path's lstat; undefined when nothing is there (a file where a folder of the path should be: none either). */
function lstatIfThere(path: string): ReturnType<typeof lstatSync> | undefined {
  try {
    return lstatSync(path);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === "ENOENT" || code === "ENOTDIR") return undefined;
    throw error;
  }
}

/** The lines of `packed-refs` (none when there is no such file); undefined when it is not a regular file. */
function packedLines(path: string): string[] | undefined {
  const stat = lstatSync(path, { throwIfNoEntry: false });
  if (!stat) return [];
  if (!stat.isFile()) return undefined;
  return readFileSync(path, "latin1").split("\n");
}

/** `{ branch }` named by a HEAD file (undefined branch: detached); undefined when it is unusual. */
function headBranch(path: string): { branch?: string } | undefined {
  // A HEAD that is a symbolic link is the old form of a symbolic ref, and a FIFO would hang the read.
  if (!lstatSync(path).isFile()) return undefined;
  const text = readFileSync(path, "latin1").trim();
  if (!isAscii(text)) return undefined;
  if (objectName.test(text)) return {};
  if (!text.startsWith("ref:")) return undefined;
  const ref = text.slice("ref:".length).trim();
  if (!ref.startsWith("refs/heads/")) return undefined;
  const branch = ref.slice("refs/heads/".length);
  return isPlainBranchPath(branch) ? { branch } : undefined;
}
