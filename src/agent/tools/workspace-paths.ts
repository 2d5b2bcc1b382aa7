/**
 * Keeps tools inside the workspace: a path the model names is resolved against the worktree and must
 * stay in it (for writing) or in one of the readable folders (for reading), both as written and after
 * every symlink is followed, so neither `../../etc/passwd` nor a link pointing out gets through. A path
 * that does not exist yet is judged by its nearest existing parent.
 */
import { realpath } from "node:fs/promises";
import { dirname, isAbsolute, relative, resolve } from "node:path";
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

/** The real path of `path`, or of its nearest existing parent joined with the rest. */
async function realpathOfNearest(path: string): Promise<string> {
  let existing = path;
  let rest = "";
  for (;;) {
    try {
      const real = await realpath(existing);
      return rest ? resolve(real, rest) : real;
    } catch {
      const parent = dirname(existing);
      if (parent === existing) return path;
      rest = rest ? `${relative(parent, existing)}/${rest}` : relative(parent, existing);
      existing = parent;
    }
  }
}
