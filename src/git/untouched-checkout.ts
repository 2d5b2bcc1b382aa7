/**
 * Whether a checkout is still exactly what git wrote there with its private index, told without starting
 * git: so that a gate's recheck on the same commit needs no `clean` and `read-tree`, and the next
 * commit's checkout only its `read-tree`.
 *
 * The proof, for an index this process recorded (known-index.ts) and marked (`markCheckoutClock`, taken
 * as a checkout ends, before any command can write there) that is still byte for byte that one:
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
import {
  closeSync,
  constants,
  fstatSync,
  lstatSync,
  openSync,
  readdirSync,
  unlinkSync,
} from "../files/node-fs.ts";
import { markedIndex, markIndexClock } from "./known-index.ts";
import { type IndexEntry, maximumIndexEntries, parseIndexEntries } from "./missing-index-paths.ts";

const typeBits = 0o170000;
const regularType = 0o100000;
const symlinkType = 0o120000;
/** An entry's assume-valid bit and stage bits: set, git would not compare its stat data as read-tree does. */
const assumeValidOrStage = 0xb000;

let clockFiles = 0;

/**
 * Marks the recorded private index `indexFile` of `checkout` with the file system's clock now (see
 * above). Call it as a checkout ends, before anything but that checkout can have written there since git
 * wrote that index. The time is a new file's change time, made beside the index (in loopwright's
 * private git directory, never in the checkout), taken only when that file is on the checkout's device
 * (the same file system, so the same clock and granularity). Never throws: without a mark there is no proof.
 */
export function markCheckoutClock(checkout: string, indexFile: string): void {
  const clockFile = `${indexFile}.clock-${process.pid}-${clockFiles++}`;
  let descriptor: number | undefined;
  try {
    descriptor = openSync(
      clockFile,
      constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | constants.O_NOFOLLOW,
      0o600,
    );
    const clock = fstatSync(descriptor, { bigint: true });
    const folder = lstatSync(checkout, { bigint: true });
    if (folder.isDirectory() && folder.dev === clock.dev) markIndexClock(indexFile, clock.ctimeNs);
  } catch {
    // No mark: the next checkout there runs git in full.
  } finally {
    if (descriptor !== undefined) {
      closeSync(descriptor);
      try {
        unlinkSync(clockFile);
      } catch {
        // Left behind, it is only a stray file in loopwright's own folder.
      }
    }
  }
}

/**
 * What the private index `indexFile` holds (`commit:<sha>`, `tree:<sha>`), when `checkout` provably still
 * holds exactly its files and nothing else (see above); undefined when not proven. `hashBytes`: the size
 * of the repository's object ids.
 */
export function untouchedCheckout(
  checkout: string,
  indexFile: string,
  hashBytes: 20 | 32,
): string | undefined {
  const marked = markedIndex(indexFile);
  if (!marked) return undefined;
  const entries = parseIndexEntries(marked.bytes, hashBytes, maximumIndexEntries);
  if (!entries) return undefined;
  try {
    const top = lstatSync(checkout, { bigint: true });
    if (!top.isDirectory()) return undefined;
    const folders = new Map<string, Map<string, boolean>>([["", new Map()]]);
    const base = Buffer.from(checkout.endsWith("/") ? checkout : `${checkout}/`);
    for (const entry of entries) {
      if (!asRecorded(base, entry, marked.markedAt)) return undefined;
      addPath(folders, entry.name.toString("latin1"));
    }
    for (const [folder, names] of folders) if (!holdsOnly(base, folder, names)) return undefined;
  } catch {
    return undefined;
  }
  return marked.holds;
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

/** Whether `folder` (latin1, relative to `base`) holds exactly `names`, the folders among them real ones. */
function holdsOnly(base: Buffer, folder: string, names: Map<string, boolean>): boolean {
  const path = folder === "" ? base : Buffer.concat([base, Buffer.from(folder, "latin1")]);
  let count = 0;
  for (const entry of readdirSync(path, { withFileTypes: true, encoding: "buffer" })) {
    const name = entry.name.toString("latin1");
    if (folder === "" && name === ".git") continue;
    const isFolder = names.get(name);
    if (isFolder === undefined || (isFolder && !entry.isDirectory())) return false;
    count += 1;
  }
  return count === names.size;
}
