/**
 * Walks a folder for grep, glob and list: depth first, names sorted, without following symbolic links,
 * skipping version-control and dependency folders. Yields paths relative to the folder walked.
 */
import type { Dirent } from "node:fs";
import { readdir } from "node:fs/promises";
import { join } from "node:path";

/** Folders never walked into (their contents are not the project's own). */
export const skippedFolders = new Set([".git", "node_modules", ".hg", ".svn"]);

export interface WalkedEntry {
  /** Relative to the folder walked, with `/` separators. */
  path: string;
  kind: "file" | "folder" | "link";
  depth: number;
}

/** Entries under `folder` down to `maxDepth` (1 = its own entries); stops when `signal` aborts. */
export async function* walk(
  folder: string,
  maxDepth: number,
  signal?: AbortSignal,
): AsyncGenerator<WalkedEntry> {
  async function* visit(relativeFolder: string, depth: number): AsyncGenerator<WalkedEntry> {
    if (signal?.aborted) return;
    let entries: Dirent[];
    try {
      entries = await readdir(join(folder, relativeFolder), { withFileTypes: true });
    } catch {
      return;
    }
    entries.sort((left, right) => left.name.localeCompare(right.name));
    for (const entry of entries) {
      const path = relativeFolder ? `${relativeFolder}/${entry.name}` : entry.name;
      if (entry.isSymbolicLink()) yield { path, kind: "link", depth };
      else if (entry.isDirectory()) {
        yield { path, kind: "folder", depth };
        if (depth < maxDepth && !skippedFolders.has(entry.name)) yield* visit(path, depth + 1);
      } else if (entry.isFile()) yield { path, kind: "file", depth };
    }
  }
  yield* visit("", 1);
}
