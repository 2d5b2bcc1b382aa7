import { readdir, readFile, stat } from "node:fs/promises";
import { join } from "node:path";

/**
 * What detection sees of a project folder: the names at its top level and the text of the few
 * manifests and config files it reads. Detection is a pure function over this, so it can be tested
 * without touching the disk.
 */
export interface ProjectFiles {
  /** Names of the folder's top-level entries; folders carry a trailing "/" (for example "tests/"). */
  entries: readonly string[];
  /** Text of the files in `readableFileNames` that exist, keyed by file name. */
  contents: Readonly<Record<string, string>>;
}

/** The top-level files whose text detection reads; every other file is only seen by name. */
export const readableFileNames = [
  "package.json",
  "Makefile",
  "makefile",
  "GNUmakefile",
  "pyproject.toml",
  "setup.cfg",
  "tox.ini",
  "Cargo.toml",
  "rust-toolchain.toml",
  "go.mod",
] as const;

/** Files larger than this (bytes) are seen by name only: no manifest is that big. */
const maximumReadableBytes = 1_000_000;

/**
 * Lists `directory`'s top level and reads the manifests detection needs. Unreadable entries are
 * skipped; a missing or unreadable `directory` rejects with the file system's error.
 */
export async function readProjectFiles(directory: string): Promise<ProjectFiles> {
  const dirents = await readdir(directory, { withFileTypes: true });
  const entries = dirents.map((entry) => (entry.isDirectory() ? `${entry.name}/` : entry.name)).sort();
  const contents: Record<string, string> = {};
  for (const name of readableFileNames) {
    if (!entries.includes(name)) continue;
    const path = join(directory, name);
    try {
      if ((await stat(path)).size > maximumReadableBytes) continue;
      contents[name] = await readFile(path, "utf8");
    } catch {
      // A manifest we cannot read is treated as absent; detection stays best effort.
    }
  }
  return { entries, contents };
}

/** True when the project has a top-level file or folder with this name (folders: "tests/"). */
export function hasEntry(files: ProjectFiles, name: string): boolean {
  return files.entries.includes(name);
}
