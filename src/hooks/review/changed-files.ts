/**
 * What changed in the user's working tree since a commit (committed, staged, unstaged and untracked
 * files, less ignored ones and `.loopwright/`), with the content stamps of those files.
 */
import { createHash } from "node:crypto";
import { lstatSync, readFileSync, readlinkSync } from "node:fs";
import { join } from "node:path";
import { gitResult } from "../../git/git.ts";
import { stateFolderName } from "../hook-layout.ts";
import { type ContentStamps, contentStamps, type FileState } from "./content-stamps.ts";

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

/**
 * The files that differ between `base` and the working tree at `root`, and their stamps. A base git no
 * longer knows (history rewritten) falls back to HEAD. Throws only when git cannot run at all.
 */
export async function changeSnapshot(root: string, base: string): Promise<ChangeSnapshot> {
  const changed = await changedPaths(root, base);
  const files: FileState[] = changed.paths.map((path) => ({ path, digest: digestOf(join(root, path)) }));
  return { ...contentStamps(files), base: changed.base };
}

/** The changed paths only (no content read), and the base they were measured from. */
export async function changedPaths(root: string, base: string): Promise<{ paths: string[]; base: string }> {
  let used = base;
  let [tracked, untracked] = await Promise.all([diffNames(root, base), untrackedNames(root)]);
  if (tracked === undefined) {
    used = await headCommit(root);
    tracked = (await diffNames(root, used)) ?? [];
  }
  const paths = [...new Set([...tracked, ...untracked])].filter(
    (path) => path !== stateFolderName && !path.startsWith(`${stateFolderName}/`),
  );
  return { paths, base: used };
}

async function diffNames(root: string, base: string): Promise<string[] | undefined> {
  const result = await gitResult(
    ["diff", "--name-only", "-z", "--no-renames", "--no-ext-diff", base, "--"],
    root,
  );
  return result.code === 0 ? splitNul(result.stdout) : undefined;
}

async function untrackedNames(root: string): Promise<string[]> {
  const result = await gitResult(["ls-files", "--others", "--exclude-standard", "-z"], root);
  if (result.code !== 0) throw new Error(`git ls-files failed in ${root}: ${result.stderr.trim()}`);
  return splitNul(result.stdout);
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
    return `${mode}${createHash("sha256").update(readFileSync(path)).digest("hex")}`;
  } catch {
    return "deleted";
  }
}
