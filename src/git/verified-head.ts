/**
 * The answer of `repositoryCommitAt(path, "HEAD")` read from files, without a git process, for a HEAD
 * that git already found to be a commit: `validate` of a spec that has not changed asks git nothing.
 *
 * The files give HEAD's object name (the main worktree found as `plainRepositoryAt` finds it, HEAD a
 * plain branch read as `readBranchFile` reads it, or detached); they cannot tell that the object is
 * a commit (git's `^{commit}`) without inflating it. So an object name is used only when git answered
 * it before for the same git directory (kept in the home's `cache/verified-commits.json`): an object
 * name is a hash of the object's content, so an object git found to be a commit is a commit while it
 * exists, and a branch keeps what it names from being pruned. Anything else (another base, a branch
 * git has not confirmed, a tag, an odd ref, a linked worktree, a symlinked `.git`, or an object store
 * that is not plainly the repository's own: see `hasPlainObjects`) is git's to answer, and such an
 * answer of git's is not kept either.
 */

import { dirname, join, resolve } from "node:path";
import { makeFolders } from "../files/make-folders.ts";
import { lstatSync, readdirSync, readFileSync, renameSync, rmSync, writeFileSync } from "../files/node-fs.ts";
import { plainRepositoryAt } from "./plain-repository.ts";
import { readBranchFile } from "./ref-files.ts";

/** What `repositoryCommitAt` answers in the usual case. */
export interface RepositoryCommit {
  root: string;
  commonDirectory: string;
  commit: string;
}

/** Commits kept at most, the most recently confirmed first. */
export const maximumVerifiedCommits = 64;

const objectName = /^(?:[0-9a-f]{40}|[0-9a-f]{64})$/;

interface VerifiedCommit {
  directory: string;
  commit: string;
}

/** Where the confirmed commits are kept in `home`. */
export function verifiedCommitsPath(home: string): string {
  return join(home, "cache", "verified-commits.json");
}

/**
 * `repositoryCommitAt(path, commitish)` from files when `commitish` is `HEAD` and what HEAD names is a
 * commit git confirmed before (`rememberVerifiedCommit`); undefined otherwise (ask git). Never throws.
 */
export async function verifiedHeadAt(
  path: string,
  commitish: string,
  home: string,
): Promise<RepositoryCommit | undefined> {
  if (commitish !== "HEAD") return undefined;
  try {
    const repository = plainRepositoryAt(resolve(path));
    if (!repository || !hasPlainObjects(repository.commonDirectory)) return undefined;
    const commit = await headObjectName(repository.root, repository.commonDirectory);
    if (commit === undefined) return undefined;
    const known = readVerified(home).some(
      (entry) => entry.directory === repository.commonDirectory && entry.commit === commit,
    );
    return known ? { ...repository, commit } : undefined;
  } catch {
    return undefined;
  }
}

/**
 * The object name HEAD names, from `<root>/.git/HEAD` (already found plain by `plainRepositoryAt`): a
 * detached object name, or a branch's (`readBranchFile`); undefined for anything else.
 */
async function headObjectName(root: string, gitDirectory: string): Promise<string | undefined> {
  const head = readFileSync(join(gitDirectory, "HEAD"), "latin1");
  const detached = head.trimEnd();
  if (objectName.test(detached) && head.length - detached.length <= 1) return detached;
  const symbolic = /^ref: refs\/heads\/([^\n]+)\n?$/.exec(head);
  return symbolic ? readBranchFile(root, symbolic[1]) : undefined;
}

/**
 * Git's variables that change which objects a name reaches: replacement refs elsewhere or ignored,
 * another object folder or more of them, another shallow or graft file.
 */
const objectVariables =
  /^GIT_(REPLACE_REF_BASE|NO_REPLACE_OBJECTS|OBJECT_DIRECTORY|ALTERNATE_OBJECT_DIRECTORIES|SHALLOW_FILE|GRAFT_FILE)$/;

/** A packed-refs over this size is git's to read: git searches it, this would read it whole. */
const maximumPackedRefsBytes = 64 * 1024;

/**
 * Whether the objects HEAD's name reaches are plainly the repository's own, so that an object git
 * confirmed as a commit stays one while the branch names it: no variable of `objectVariables`, no
 * alternates (a shared clone's objects can be pruned by another repository), no shallow or graft file
 * (they change what a commit's history is, and git refuses a damaged one), no replacement refs (git
 * then reads another object in place of one it names), and a packed-refs small enough to read. Anything
 * that cannot be looked at counts as not plain.
 */
function hasPlainObjects(gitDirectory: string, env: NodeJS.ProcessEnv = process.env): boolean {
  if (Object.keys(env).some((name) => env[name] !== undefined && objectVariables.test(name))) return false;
  for (const path of [["objects", "info", "alternates"], ["shallow"], ["info", "grafts"]]) {
    try {
      lstatSync(join(gitDirectory, ...path));
      return false;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== "ENOENT") return false;
    }
  }
  try {
    if (lstatSync(join(gitDirectory, "packed-refs")).size > maximumPackedRefsBytes) return false;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== "ENOENT") return false;
  }
  return !hasReplaceRefs(gitDirectory);
}

/** Whether the repository has replacement refs (`git replace`); a folder that cannot be listed has some. */
function hasReplaceRefs(gitDirectory: string): boolean {
  try {
    if (readdirSync(join(gitDirectory, "refs", "replace")).length > 0) return true;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== "ENOENT") return true;
  }
  try {
    return readFileSync(join(gitDirectory, "packed-refs"), "latin1").includes(" refs/replace/");
  } catch (error) {
    return (error as NodeJS.ErrnoException).code !== "ENOENT";
  }
}

/**
 * Keeps `answer` (git's own answer for HEAD) as a confirmed commit of its git directory, unless its
 * objects are not plain (`hasPlainObjects`: an answer given through a replacement, say, would outlive
 * it). Written whole (a temporary file renamed); a failure only means git is asked again next time, and
 * leaves no temporary file.
 */
export function rememberVerifiedCommit(home: string, answer: RepositoryCommit): void {
  const temporary = `${verifiedCommitsPath(home)}.${process.pid}.tmp`;
  try {
    if (!hasPlainObjects(answer.commonDirectory)) return;
    const entry = { directory: answer.commonDirectory, commit: answer.commit };
    const others = readVerified(home).filter(
      (kept) => kept.directory !== entry.directory || kept.commit !== entry.commit,
    );
    const path = verifiedCommitsPath(home);
    makeFolders(dirname(path), 0o700);
    const entries = [entry, ...others].slice(0, maximumVerifiedCommits);
    writeFileSync(temporary, JSON.stringify({ entries }), { mode: 0o600 });
    renameSync(temporary, path);
  } catch {
    // Nothing kept: the next command asks git.
    try {
      rmSync(temporary, { force: true });
    } catch {}
  }
}

/** The kept entries; none when the file is missing, damaged or of another shape. */
function readVerified(home: string): VerifiedCommit[] {
  try {
    const parsed = JSON.parse(readFileSync(verifiedCommitsPath(home), "utf8")) as { entries?: unknown };
    if (!Array.isArray(parsed.entries)) return [];
    return parsed.entries.filter(
      (entry): entry is VerifiedCommit =>
        typeof entry?.directory === "string" &&
        typeof entry.commit === "string" &&
        objectName.test(entry.commit),
    );
  } catch {
    return [];
  }
}
