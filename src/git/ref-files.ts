/**
 * Refs read and named as files, where git keeps them as files: sparing a git process where the answer
 * is one small file away. Anything unusual (a reftable, a symbolic ref, a name that is not a plain
 * path) is left to git.
 */
import { join } from "node:path";
import { lstatSync, readFileSync } from "../files/node-fs.ts";

/** Text of ASCII characters only: a file read as latin1 is then the same text git's bytes are. */
export function isAscii(text: string): boolean {
  for (let index = 0; index < text.length; index++) if (text.charCodeAt(index) > 0x7f) return false;
  return true;
}

/**
 * Whether `dotGit` is a `.git` folder that keeps its refs itself, in files: a real folder (not a symbolic
 * link), no reftable, and no `commondir` or `gitdir` file (a worktree's administrative folder, whose
 * refs, packed-refs and worktrees live in the common folder it names). Anything else is git's to read.
 */
export function isOwnGitDirectory(dotGit: string): boolean {
  const folder = lstatSync(dotGit, { throwIfNoEntry: false });
  if (!folder?.isDirectory()) return false;
  return ["reftable", "commondir", "gitdir"].every(
    (name) => lstatSync(join(dotGit, name), { throwIfNoEntry: false }) === undefined,
  );
}

/**
 * A branch name whose ref file is a plain path inside `refs/heads/` and that git accepts (its
 * `check-ref-format` rules): no empty, `.`-led or `.`-ended segment, no `..`, no `.lock` ending, no
 * `@{`, not `@` alone, nothing git refuses in a ref name (control characters, space, `~^:?*[\`).
 */
export function isPlainBranchPath(branch: string): boolean {
  if (branch === "@" || branch.includes("@{")) return false;
  return branch
    .split("/")
    .every(
      (segment) =>
        segment !== "" &&
        !segment.startsWith(".") &&
        !segment.endsWith(".") &&
        !segment.endsWith(".lock") &&
        !segment.includes("..") &&
        !/[\s~^:?*[\\]/.test(segment) &&
        ![...segment].some((character) => character.charCodeAt(0) < 0x20 || character.charCodeAt(0) === 0x7f),
    );
}

/** A full object name, SHA-1 or SHA-256. */
const objectName = /^(?:[0-9a-f]{40}|[0-9a-f]{64})$/;
/**
 * A loose ref file as git reads it: the object name first (no whitespace before it), then the end or one
 * of git's whitespace characters (space, tab, CR, LF) and anything after.
 */
const looseRef = /^([0-9a-f]{40}|[0-9a-f]{64})(?:[ \t\r\n][\s\S]*)?$/;

/**
 * The commit `refs/heads/<branch>` of the repository whose main checkout is `root` names, read from its
 * files: the loose ref file, else the `packed-refs` line. Undefined when the files cannot tell for sure
 * (no `.git` folder of its own (see `isOwnGitDirectory`), a name beyond ASCII, a symbolic ref, a loose ref that is a symbolic link — git reads it
 * as a symbolic ref, which a file read would follow elsewhere or find dangling and then trust a stale
 * packed line —, a name that is not a plain path, a branch found in neither file, a file being
 * rewritten): ask git then. The object is not checked to be a commit. The files are read synchronously
 * (two small files at most): node:fs/promises alone loads nine more of Node's modules.
 */
export async function readBranchFile(root: string, branch: string): Promise<string | undefined> {
  if (!isPlainBranchPath(branch)) return undefined;
  const dotGit = join(root, ".git");
  if (!isAscii(branch) || !isOwnGitDirectory(dotGit)) return undefined;
  // Only a loose ref that is not there sends the question to packed-refs; any other failure (a file it
  // may not read, a folder where the file should be) is git's to answer.
  let missing = false;
  const loosePath = join(dotGit, "refs", "heads", ...branch.split("/"));
  if (isSymbolicLink(loosePath)) return undefined;
  const loose = readOrUndefined(loosePath, (error) => {
    missing = error.code === "ENOENT" || error.code === "ENOTDIR";
  });
  if (!missing && loose === undefined) return undefined;
  if (loose !== undefined) {
    return looseRef.exec(loose)?.[1];
  }
  const packed = readOrUndefined(join(dotGit, "packed-refs"), () => {});
  const suffix = ` refs/heads/${branch}`;
  for (const line of packed?.split("\n") ?? []) {
    if (!line.endsWith(suffix)) continue;
    const name = line.slice(0, -suffix.length);
    return objectName.test(name) ? name : undefined;
  }
  return undefined;
}

/** The file's text as latin1, or undefined (`failed` is told why) when it cannot be read. */
function readOrUndefined(path: string, failed: (error: NodeJS.ErrnoException) => void): string | undefined {
  try {
    return readFileSync(path, "latin1");
  } catch (error) {
    failed(error as NodeJS.ErrnoException);
    return undefined;
  }
}

/** Whether `path` is a symbolic link; false when it cannot be looked at (the read that follows says why). */
function isSymbolicLink(path: string): boolean {
  try {
    return lstatSync(path).isSymbolicLink();
  } catch {
    return false;
  }
}
