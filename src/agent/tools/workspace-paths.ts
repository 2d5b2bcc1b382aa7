/**
 * Keeps tools inside the workspace: a path the model names is resolved against the worktree and must
 * stay in it (for writing) or in one of the readable folders (for reading), both as written and after
 * every symlink is followed, so neither `../../etc/passwd` nor a link pointing out gets through. Every
 * component is followed, a dangling link too: writing through one creates its target, wherever it is.
 */
import { lstat, readlink, realpath } from "node:fs/promises";
import { isAbsolute, join, relative, resolve, sep } from "node:path";
import type { Workspace } from "../agent-types.ts";

export type ResolvedPath = { ok: true; path: string } | { ok: false; error: string };

/** `path` (relative to the worktree, or absolute) if reading it stays inside a readable folder. */
export function resolveReadable(workspace: Workspace, path: string): Promise<ResolvedPath> {
  return resolveInside(workspace, path, [workspace.root, workspace.scratch, ...workspace.readable]);
}

/** `path` if writing it stays inside the worktree. */
export function resolveWritable(workspace: Workspace, path: string): Promise<ResolvedPath> {
  return resolveInside(workspace, path, [workspace.root]);
}

/** True when `path` is `folder` or below it (both absolute and normalized). */
export function isInside(folder: string, path: string): boolean {
  const rest = relative(folder, path);
  return rest === "" || (rest !== ".." && !rest.startsWith("../") && !isAbsolute(rest));
}

async function resolveInside(workspace: Workspace, path: string, roots: string[]): Promise<ResolvedPath> {
  if (typeof path !== "string" || path.trim() === "")
    return { ok: false, error: "the path is empty; give a path relative to the working directory" };
  const absolute = resolve(workspace.root, path);
  const where =
    roots.length === 1
      ? `the working directory ${workspace.root}`
      : `the working directory ${workspace.root} and the folders it may read`;
  if (!roots.some((root) => isInside(root, absolute)))
    return {
      ok: false,
      error: `${path} is outside ${where}; refused. Use a path inside it, e.g. relative to it.`,
    };
  const real = await realpathOfNearest(absolute);
  const realRoots = await Promise.all(roots.map((root) => realpath(root).catch(() => root)));
  if (!realRoots.some((root) => isInside(root, real)))
    return {
      ok: false,
      error: `${path} leads outside ${where} through a symbolic link (to ${real}); refused.`,
    };
  return { ok: true, path: absolute };
}

/** How many links one path may pass through before it counts as a loop (as the kernel's limit). */
const linkLimit = 40;

/**
 * Where `path` really leads: each component in turn, every symbolic link replaced by its target even
 * when that target does not exist (yet). A link loop leads nowhere we accept: the root of the file system.
 */
async function realpathOfNearest(path: string, linksFollowed = 0): Promise<string> {
  const components = path.split(sep).filter(Boolean);
  let current: string = sep;
  for (let index = 0; index < components.length; index++) {
    const candidate = join(current, components[index]);
    const status = await lstat(candidate).catch(() => undefined);
    if (!status) return join(candidate, ...components.slice(index + 1));
    if (status.isSymbolicLink()) {
      if (linksFollowed >= linkLimit) return sep;
      const target = resolve(current, await readlink(candidate));
      return realpathOfNearest(join(target, ...components.slice(index + 1)), linksFollowed + 1);
    }
    current = candidate;
  }
  return current;
}
