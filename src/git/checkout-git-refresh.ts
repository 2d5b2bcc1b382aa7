/**
 * A checkout's `.git` brought back to what loopwright's rebuild makes without rebuilding it, when only
 * the contents of some of its files differ (the usual case between two checkouts: HEAD or the branch's
 * ref names another commit, the index is another one). Anything else (an entry more or less, a symlink,
 * a file with another mode or another link to it, a folder that is not one, a `.git` this process did
 * not rebuild itself) is no refresh: the caller rebuilds in full. Creating the folders and files of a
 * `.git` and deleting the old one cost many times what reading it does.
 */
import { join } from "node:path";
import {
  closeSync,
  constants,
  fstatSync,
  ftruncateSync,
  lstatSync,
  openSync,
  readdirSync,
  readFileSync,
  writeSync,
} from "../files/node-fs.ts";

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
 * Makes `dotGit` hold exactly `expected` by rewriting the files whose bytes differ (in place, each still
 * the file looked at: never written through a link), when its folders and files are
 * exactly the expected ones, each a real folder or a regular file with one link, each with its recorded mode.
 * Returns false otherwise, having changed nothing (or, when a write failed, only some of those files).
 */
export function refreshCheckoutGit(dotGit: string, expected: ExpectedGit): boolean {
  const modes = modesByGit.get(dotGit);
  if (!modes) return false;
  const stale: { path: string; device: number; inode: number }[] = [];
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
        if (stats.size !== bytes.length || !readFileSync(join(dotGit, path)).equals(bytes))
          stale.push({ path, device: stats.dev, inode: stats.ino });
      }
      return true;
    };
    if (!walk("") || entries !== expected.folders.size + expected.files.size) return false;
  } catch {
    return false;
  }
  // A write that fails (a full disk, a file that is no longer the one looked at) leaves the rest to the
  // full rebuild, which replaces everything.
  try {
    for (const file of stale)
      rewriteInPlace(join(dotGit, file.path), file, expected.files.get(file.path) as Buffer);
  } catch {
    return false;
  }
  return true;
}

/**
 * Writes `bytes` over the file at `target` in place, when what opens there without following a link is
 * still the regular file with one link looked at (`device`, `inode`): never through a link, a hard link
 * or a folder swapped in on the way since (it throws instead). Neither a new file nor a rename (each
 * forces the file system to write the data out: a millisecond or two apiece here), nor a truncation to
 * nothing (which does too): the bytes are written from the start, then the file is cut at their end.
 */
export function rewriteInPlace(
  target: string,
  looked: { device: number; inode: number },
  bytes: Buffer,
): void {
  const descriptor = openSync(target, constants.O_WRONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK);
  try {
    const stats = fstatSync(descriptor);
    if (!stats.isFile() || stats.nlink !== 1 || stats.dev !== looked.device || stats.ino !== looked.inode)
      throw new Error(`${target} is not the file looked at`);
    let written = 0;
    while (written < bytes.length)
      written += writeSync(descriptor, bytes, written, bytes.length - written, written);
    if (stats.size > bytes.length) ftruncateSync(descriptor, bytes.length);
  } finally {
    closeSync(descriptor);
  }
}
