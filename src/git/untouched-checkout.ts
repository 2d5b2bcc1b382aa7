/**
 * Whether a checkout is still exactly what git wrote there with its private index, told without starting
 * git: so that a gate's recheck on the same commit needs no `clean` and `read-tree`, and the next
 * commit's checkout only its `read-tree`.
 *
 * The proof, for an index this process recorded (known-index.ts) with a mark of the file system's clock
 * (`checkoutClock`, read as git has written it, before any command can write there) that is still byte
 * for byte that one:
 * - every folder that holds tracked paths is a real folder (never a link) holding the tracked names and
 *   nothing else (`.git` aside at the top, which is rebuilt before every use anyway): no untracked file,
 *   ignored or not, no empty folder, no planted `.gitignore`, `.gitattributes` or nested `.git`;
 * - every tracked path is a regular file or a symlink, as the index says, whose lstat is the one git
 *   recorded: change time (to the nanosecond), modification time, device, inode, mode, owner, size;
 * - and every recorded change time is earlier than the mark. A file's change time is set by the kernel
 *   to "now" at every write, truncation, chmod, rename, link or time change (no process can set it
 *   back), so a change made after the mark shows a later one. A change made before the mark, in the
 *   same clock tick as git's write, would not show: the mark rules that out, as git's own racy-entry
 *   check does with the index's time. Only loopwright runs in the checkout between git's write and the mark.
 * Anything else (an untracked entry, a submodule, a conflict stage, a large index, another device for the
 * mark) is no proof, and the caller runs git as before. Linux and any system with nanosecond `lstat`.
 */
import type { Stats } from "node:fs";
import { join } from "node:path";
import {
  closeSync,
  constants,
  fstatSync,
  futimesSync,
  lstatSync,
  openSync,
  readdirSync,
  rmSync,
} from "../files/node-fs.ts";
import { knownIndexHolding, markedIndex } from "./known-index.ts";
import { type IndexEntry, parseIndexEntries } from "./missing-index-paths.ts";

/**
 * Larger checkouts are left to git: the proof runs on the controller's main thread and grows with the
 * files (measured here: 2.0 ms for 200 tracked files against 5.3 ms for git's listing started from
 * Node; ~14 ms for 1900 against 9.6 ms), so beyond this it would cost more than the git it saves.
 */
const maximumProvenEntries = 1000;
const typeBits = 0o170000;
const regularType = 0o100000;
const symlinkType = 0o120000;
/** An entry's assume-valid bit and stage bits: set, git would not compare its stat data as read-tree does. */
const assumeValidOrStage = 0xb000;

/** Per private git directory: an open file there whose change time `checkoutClock` sets and reads. */
const clockFiles = new Map<string, number>();
/** A service runs many loops: past this many open clock files, all are closed and opened again on use. */
const maximumClockFiles = 64;

/**
 * The file system's clock now (ns), for the mark of a private index of `checkout` (see above) taken as git
 * has just written it, or undefined. Read as the change time that setting the times of a file in
 * loopwright's private git directory `directory` gives it (the kernel sets a change time to "now", on the
 * clock file writes use), and only when that file is on the checkout's device (the same file system: the
 * same clock and granularity). Never throws: without a mark there is no proof.
 */
export function checkoutClock(checkout: string, directory: string): bigint | undefined {
  try {
    const descriptor = clockFile(directory);
    futimesSync(descriptor, 0, 0);
    const clock = fstatSync(descriptor, { bigint: true });
    const folder = lstatSync(checkout, { bigint: true });
    return folder.isDirectory() && folder.dev === clock.dev ? clock.ctimeNs : undefined;
  } catch {
    return undefined;
  }
}

function clockFile(directory: string): number {
  let descriptor = clockFiles.get(directory);
  if (descriptor === undefined) {
    if (clockFiles.size >= maximumClockFiles) {
      for (const open of clockFiles.values()) closeSync(open);
      clockFiles.clear();
    }
    descriptor = openClockFile(join(directory, "clock"));
    clockFiles.set(directory, descriptor);
  }
  return descriptor;
}

/**
 * Opens the clock file `path`: the one there when it is a plain file of this user's (regular, one link),
 * else a new one in its place. Gates run outside the OS sandbox and may plant anything under that name: a
 * FIFO (an open without O_NONBLOCK waits for a writer for good, on the main thread), a symlink, a hard
 * link to a file whose times a mark would set, a folder. Nothing planted is followed, waited on, or has
 * its times set: it is removed, and the new file is made with O_EXCL (a name planted meanwhile fails the
 * open: no mark, and git runs). Throws when no clock file can be had.
 */
function openClockFile(path: string): number {
  const flags = constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK;
  const found = lstatSync(path, { throwIfNoEntry: false });
  if (found !== undefined && plainOwnFile(found)) {
    try {
      const descriptor = openSync(path, flags);
      if (plainOwnFile(fstatSync(descriptor))) return descriptor;
      closeSync(descriptor);
    } catch {
      // Replaced or unreadable since the lstat: made anew below.
    }
  }
  if (found !== undefined) rmSync(path, { recursive: true, force: true });
  return openSync(path, flags | constants.O_CREAT | constants.O_EXCL, 0o600);
}

function plainOwnFile(stats: Stats): boolean {
  return stats.isFile() && stats.nlink === 1 && stats.uid === process.getuid?.();
}

/**
 * What the private index `indexFile` holds (`commit:<sha>`, `tree:<sha>`), when `checkout` provably still
 * holds exactly its files and nothing else (see above); undefined when not proven. `hashBytes`: the size
 * of the repository's object ids. The folders are listed before any tracked file is looked at, the top
 * one first, and the first difference ends the proof: an untracked folder at the top (node_modules, which
 * every clean keeps) fails it at once.
 */
export function untouchedCheckout(
  checkout: string,
  indexFile: string,
  hashBytes: 20 | 32,
): string | undefined {
  if (strayStillThere(checkout, indexFile)) return undefined;
  const marked = markedIndex(indexFile);
  if (!marked) return undefined;
  const entries = parseIndexEntries(marked.bytes, hashBytes, maximumProvenEntries);
  if (!entries) return undefined;
  try {
    const top = lstatSync(checkout, { bigint: true });
    if (!top.isDirectory()) return undefined;
    const folders = new Map<string, Map<string, boolean>>([["", new Map()]]);
    const base = Buffer.from(checkout.endsWith("/") ? checkout : `${checkout}/`);
    for (const entry of entries) addPath(folders, entry.name.toString("latin1"));
    for (const [folder, names] of folders) {
      const difference = folderDifference(base, folder, names);
      if (difference === undefined) continue;
      if (difference !== true) rememberStray(indexFile, { checkout, holds: marked.holds, path: difference });
      return undefined;
    }
    for (const entry of entries) if (!asRecorded(base, entry, marked.markedAt)) return undefined;
  } catch {
    return undefined;
  }
  return marked.holds;
}

/**
 * Per private index: an untracked entry that failed its checkout's last proof, with what the index held
 * then. While the index holds the same (the same tracked names) and the entry is still there (a clean
 * kept it: ignored, as installed dependencies), the proof would fail on it again: one lstat says so,
 * instead of reading, digesting and parsing the index first.
 */
const strays = new Map<string, { checkout: string; holds: string; path: Buffer }>();
/** A service runs many loops, each with a few indexes: bounded, then started afresh. */
const maximumStrays = 10_000;

function rememberStray(indexFile: string, stray: { checkout: string; holds: string; path: Buffer }): void {
  if (strays.size >= maximumStrays) strays.clear();
  strays.set(indexFile, stray);
}

function strayStillThere(checkout: string, indexFile: string): boolean {
  const stray = strays.get(indexFile);
  if (stray === undefined) return false;
  if (
    stray.checkout === checkout &&
    stray.holds === knownIndexHolding(indexFile) &&
    lstatSync(stray.path, { throwIfNoEntry: false }) !== undefined
  )
    return true;
  strays.delete(indexFile);
  return false;
}

/** Whether the entry's path is what git recorded, changed before the mark and never since. */
function asRecorded(base: Buffer, entry: IndexEntry, markedAt: bigint): boolean {
  if (entry.flags & assumeValidOrStage) return false;
  const type = entry.mode & typeBits;
  if (type !== regularType && type !== symlinkType) return false;
  const stats = lstatSync(Buffer.concat([base, entry.name]), { bigint: true, throwIfNoEntry: false });
  if (!stats) return false;
  if (type === regularType ? !stats.isFile() : !stats.isSymbolicLink()) return false;
  const recorded = entry.stat;
  const changed = BigInt(recorded.readUInt32BE(0)) * 1_000_000_000n + BigInt(recorded.readUInt32BE(4));
  const modified = BigInt(recorded.readUInt32BE(8)) * 1_000_000_000n + BigInt(recorded.readUInt32BE(12));
  const low = (value: bigint) => Number(value & 0xffffffffn);
  return (
    changed < markedAt &&
    stats.ctimeNs === changed &&
    stats.mtimeNs === modified &&
    low(stats.dev) === recorded.readUInt32BE(16) &&
    low(stats.ino) === recorded.readUInt32BE(20) &&
    (type === symlinkType || executable(stats.mode) === executable(BigInt(entry.mode))) &&
    low(stats.uid) === recorded.readUInt32BE(28) &&
    low(stats.gid) === recorded.readUInt32BE(32) &&
    low(stats.size) === recorded.readUInt32BE(36)
  );
}

function executable(mode: bigint): boolean {
  return (mode & 0o100n) !== 0n;
}

/** Records `path` (slash-separated) under its folders: folder → name → whether that name is a folder. */
function addPath(folders: Map<string, Map<string, boolean>>, path: string): void {
  let parent = "";
  for (let start = 0; ; ) {
    const slash = path.indexOf("/", start);
    const name = path.slice(start, slash < 0 ? undefined : slash);
    const names = folders.get(parent) as Map<string, boolean>;
    if (slash < 0) {
      names.set(name, false);
      return;
    }
    names.set(name, true);
    parent = path.slice(0, slash);
    if (!folders.has(parent)) folders.set(parent, new Map());
    start = slash + 1;
  }
}

/**
 * How `folder` (latin1, relative to `base`) differs from holding exactly `names`, the folders among them
 * real ones: undefined when it does not, the path of the first untracked entry met, or true (a tracked
 * folder's name is not a folder, or a name is missing).
 */
function folderDifference(
  base: Buffer,
  folder: string,
  names: Map<string, boolean>,
): Buffer | true | undefined {
  const path = folder === "" ? base : Buffer.concat([base, Buffer.from(folder, "latin1"), slash]);
  let count = 0;
  for (const entry of readdirSync(path, { withFileTypes: true, encoding: "buffer" })) {
    const name = entry.name.toString("latin1");
    if (folder === "" && name === ".git") continue;
    const isFolder = names.get(name);
    if (isFolder === undefined) return Buffer.concat([path, entry.name]);
    if (isFolder && !entry.isDirectory()) return true;
    count += 1;
  }
  return count === names.size ? undefined : true;
}

const slash = Buffer.from("/");
