/**
 * A checkout's `.git` brought back to what loopwright's rebuild makes without rebuilding it, when only
 * the contents of some of its files differ (the usual case between two checkouts: HEAD or the branch's
 * ref names another commit, the index is another one). Anything else (an entry more or less, a symlink,
 * a file with another mode or another link to it, a folder that is not one, a `.git` this process did
 * not rebuild itself) is no refresh: the caller rebuilds in full. Creating the folders and files of a
 * `.git` and deleting the old one cost many times what reading it does.
 */
import { randomUUID } from "node:crypto";
import { join } from "node:path";
import { lstatSync, readdirSync, readFileSync, renameSync, writeFileSync } from "../files/node-fs.ts";

/** What a checkout's `.git` must hold: its folders and its files' bytes, by path inside it. */
export interface ExpectedGit {
  folders: ReadonlySet<string>;
  files: ReadonlyMap<string, Buffer>;
}

/** The modes of the folders and files of each `.git` this process rebuilt ("" the `.git` itself); bounded. */
const modesByGit = new Map<string, Map<string, number>>();
const maximumKnownGits = 1000;

/**
 * Records, right after a full rebuild of `dotGit` to `expected`, the modes its folders and files were
 * given: a later refresh accepts only the same modes.
 */
export function recordRebuiltGit(dotGit: string, expected: ExpectedGit): void {
  modesByGit.delete(dotGit);
  const modes = new Map<string, number>();
  try {
    for (const path of ["", ...expected.folders, ...expected.files.keys()])
      modes.set(path, lstatSync(join(dotGit, path)).mode);
  } catch {
    return;
  }
  if (modesByGit.size >= maximumKnownGits) modesByGit.clear();
  modesByGit.set(dotGit, modes);
}

/**
 * Makes `dotGit` hold exactly `expected` by rewriting the files whose bytes differ (each written beside
 * itself and renamed over it: a link is replaced, never written through), when its folders and files are
 * exactly the expected ones, each a real folder or a regular file with one link, each with its recorded mode.
 * Returns false otherwise, having changed nothing (or, when a write failed, only some of those files).
 */
export function refreshCheckoutGit(dotGit: string, expected: ExpectedGit): boolean {
  const modes = modesByGit.get(dotGit);
  if (!modes) return false;
  const stale: string[] = [];
  try {
    const root = lstatSync(dotGit);
    if (!root.isDirectory() || root.mode !== modes.get("")) return false;
    let entries = 0;
    const walk = (relative: string): boolean => {
      for (const entry of readdirSync(join(dotGit, relative), { withFileTypes: true })) {
        const path = relative === "" ? entry.name : `${relative}/${entry.name}`;
        entries++;
        if (entry.isDirectory()) {
          if (!expected.folders.has(path) || lstatSync(join(dotGit, path)).mode !== modes.get(path))
            return false;
          if (!walk(path)) return false;
          continue;
        }
        const bytes = expected.files.get(path);
        if (!entry.isFile() || bytes === undefined) return false;
        const stats = lstatSync(join(dotGit, path));
        if (!stats.isFile() || stats.nlink !== 1 || stats.mode !== modes.get(path)) return false;
        if (stats.size !== bytes.length || !readFileSync(join(dotGit, path)).equals(bytes)) stale.push(path);
      }
      return true;
    };
    if (!walk("") || entries !== expected.folders.size + expected.files.size) return false;
  } catch {
    return false;
  }
  // A write that fails (a full disk) leaves the rest to the full rebuild, which replaces everything.
  try {
    for (const path of stale) {
      const target = join(dotGit, path);
      const written = `${target}.${randomUUID()}`;
      writeFileSync(written, expected.files.get(path) as Buffer, {
        flag: "wx",
        mode: (modes.get(path) ?? 0) & 0o7777,
      });
      renameSync(written, target);
    }
  } catch {
    return false;
  }
  return true;
}
