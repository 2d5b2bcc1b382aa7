/**
 * What changed in the user's working tree since a commit (committed, staged, unstaged and untracked
 * files, less ignored ones and `.loopwright/`), with the content stamps of those files.
 */

import { join } from "node:path";
import { lstatSync, readFileSync, readlinkSync } from "../../files/node-fs.ts";
import { type GitResult, gitResult } from "../../git/git.ts";
import { stateFolderName } from "../hook-layout.ts";
import { type ContentStamps, contentStamps, type FileState, sha256Hex } from "./content-stamps.ts";
import { startStatus } from "./status-process.ts";

/** git's empty tree: the base of a repository without commits. */
export const emptyTree = "4b825dc642cb6eb9a060e54bf8d69288fbee4904";

export interface ChangeSnapshot extends ContentStamps {
  /** The commit (or tree) the changes were measured from. */
  base: string;
}

/** HEAD's commit, or the empty tree when the repository has no commit yet. */
export async function headCommit(root: string): Promise<string> {
  const result = await gitResult(["rev-parse", "--verify", "--quiet", "HEAD^{commit}"], root, { trim: true });
  return result.code === 0 && result.stdout !== "" ? result.stdout : emptyTree;
}

/** The state of the working tree that the hooks grade: HEAD, the changed paths, and their base. */
export interface WorkingTree {
  /** HEAD's commit, or the empty tree when the repository has no commit yet. */
  head: string;
  /** Changed paths from `base` to the working tree (untracked ones included, `.loopwright/` left out). */
  paths: string[];
  /** The commit the changes were measured from: the base asked for, or HEAD (see `workingTree`). */
  base: string;
}

/**
 * HEAD and the files that differ between `base` (HEAD when undefined) and the working tree at `root`,
 * with ONE git process when the base is HEAD (the usual case: every hook pays git's start-up, about
 * 10 ms each from Node): `git status` gives HEAD's commit, the staged and unstaged changes from HEAD
 * and the untracked files together. A file staged and then changed back in the working tree counts as
 * changed (its staged change is what a commit would record). A base other than HEAD (commits made
 * during the work) adds `git diff <base>`; a base git no longer knows (history rewritten) falls back
 * to HEAD. Throws only when git cannot run at all. `started`: that status, when the hook started it
 * already (`startStatus`).
 */
export async function workingTree(
  root: string,
  base: string | undefined,
  started: PromiseLike<GitResult> = startStatus(root),
): Promise<WorkingTree> {
  const status = await started;
  if (status.code !== 0) throw new Error(`git status failed in ${root}: ${status.stderr.trim()}`);
  const parsed = parseStatus(status.stdout);
  let used = parsed.head;
  let tracked = parsed.tracked;
  if (base !== undefined && base !== parsed.head) {
    const fromBase = await diffNames(root, base);
    if (fromBase !== undefined) {
      used = base;
      tracked = fromBase;
    }
  }
  const paths = [...new Set([...tracked, ...parsed.untracked])].filter(
    (path) => path !== stateFolderName && !path.startsWith(`${stateFolderName}/`),
  );
  return { head: parsed.head, paths, base: used };
}

/**
 * The files that differ between `base` and the working tree at `root`, and their stamps. A base git no
 * longer knows (history rewritten) falls back to HEAD. Throws only when git cannot run at all.
 */
export async function changeSnapshot(root: string, base: string | undefined): Promise<ChangeSnapshot> {
  return (await headAndSnapshot(root, base)).snapshot;
}

/** HEAD and the change snapshot from `base` (HEAD when undefined), from one `workingTree` look. */
export async function headAndSnapshot(
  root: string,
  base: string | undefined,
  started?: PromiseLike<GitResult>,
): Promise<{ head: string; snapshot: ChangeSnapshot }> {
  const tree = await workingTree(root, base, started);
  const files: FileState[] = tree.paths.map((path) => ({ path, digest: digestOf(join(root, path)) }));
  return { head: tree.head, snapshot: { ...contentStamps(files), base: tree.base } };
}

/** The changed paths only (no content read), and the base they were measured from. */
export async function changedPaths(
  root: string,
  base: string | undefined,
  started?: PromiseLike<GitResult>,
): Promise<{ paths: string[]; base: string }> {
  const { paths, base: used } = await workingTree(root, base, started);
  return { paths, base: used };
}

async function diffNames(root: string, base: string): Promise<string[] | undefined> {
  const result = await gitResult(
    ["diff", "--name-only", "-z", "--no-renames", "--no-ext-diff", base, "--"],
    root,
  );
  return result.code === 0 ? splitNul(result.stdout) : undefined;
}

/**
 * `git status --porcelain=v2 -z --branch` read: HEAD's commit (`# branch.oid`, `(initial)` without a
 * commit), the tracked paths changed in the index or the working tree (`1`, `2` with its old path,
 * `u` unmerged), and the untracked ones (`?`).
 */
function parseStatus(text: string): { head: string; tracked: string[]; untracked: string[] } {
  let head = emptyTree;
  const tracked: string[] = [];
  const untracked: string[] = [];
  const records = text.split("\0");
  for (let index = 0; index < records.length; index++) {
    const record = records[index];
    if (record.startsWith("# branch.oid ")) {
      const oid = record.slice("# branch.oid ".length);
      if (oid !== "(initial)") head = oid;
    } else if (record.startsWith("1 ")) tracked.push(fieldsFrom(record, 8));
    else if (record.startsWith("2 ")) {
      tracked.push(fieldsFrom(record, 9));
      index++;
      if (records[index]) tracked.push(records[index]);
    } else if (record.startsWith("u ")) tracked.push(fieldsFrom(record, 10));
    else if (record.startsWith("? ")) untracked.push(record.slice(2));
  }
  return { head, tracked, untracked };
}

/** The rest of a status record after its first `count` space-separated fields (the path, spaces and all). */
function fieldsFrom(record: string, count: number): string {
  let at = 0;
  for (let field = 0; field < count; field++) at = record.indexOf(" ", at) + 1;
  return record.slice(at);
}

function splitNul(text: string): string[] {
  return text.split("\0").filter((path) => path !== "");
}

/** A digest of what is at `path` now: content hash, link target, `folder` or `deleted`. */
function digestOf(path: string): string {
  try {
    const stats = lstatSync(path);
    if (stats.isSymbolicLink()) return `link:${readlinkSync(path)}`;
    if (stats.isDirectory()) return "folder";
    const mode = stats.mode & 0o111 ? "x" : "";
    return `${mode}${sha256Hex(readFileSync(path))}`;
  } catch {
    return "deleted";
  }
}
