/** A tree that is commit `sha`'s with one file's content replaced: for a commit of loopwright's own, made without a checkout. */
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { git } from "./git.ts";

/** Writes `content` as a blob and returns the id of `sha`'s tree with `path` (repository-relative) set to it. */
export async function treeWithFile(
  root: string,
  sha: string,
  path: string,
  content: string,
): Promise<string> {
  const folder = await mkdtemp(join(tmpdir(), "loopwright-index-"));
  const env = { GIT_INDEX_FILE: join(folder, "index") };
  try {
    await git(["read-tree", `${sha}^{commit}`], root, { env });
    const blob = await git(["hash-object", "-w", "--stdin"], root, { input: content, trim: true });
    await git(["update-index", "--add", "--cacheinfo", `100644,${blob},${path}`], root, { env });
    return await git(["write-tree"], root, { env, trim: true });
  } finally {
    await rm(folder, { recursive: true, force: true });
  }
}

/** The content of `path` at commit `sha`, or `undefined` when the commit has no such file. */
export async function fileAt(root: string, sha: string, path: string): Promise<string | undefined> {
  return git(["show", `${sha}:${path}`], root).catch(() => undefined);
}
