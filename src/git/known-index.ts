/**
 * What a checkout's private index holds, remembered by this process: the tree (or the commit's tree) that
 * loopwright last made it hold, with the exact bytes git left in the index file then (their sha256).
 * Bytes unchanged means the index is that one, so it still holds that tree: then one `git ls-files`
 * (`pendingListing`) tells whether the checkout's files are still exactly the index's, where a snapshot
 * (`add`, `write-tree`) or a checkout (`read-tree`) and a `clean` would run two or three gits. Any doubt
 * (another process, a file that changed, one never recorded) is no answer, and the caller runs git in full.
 */
import { createHash } from "node:crypto";
import { readFileSync } from "../files/node-fs.ts";

/**
 * Index file → what it holds (`tree:<sha>` or `commit:<sha>`), the sha256 of its bytes, and its clock
 * mark once one was taken (see `markIndexClock`).
 */
const known = new Map<string, { holds: string; digest: string; markedAt?: bigint }>();
/** A service runs many loops, each with a few indexes: bounded, then started afresh. */
const maximumKnown = 10_000;

/**
 * Records that the index file `path` holds `holds` (`tree:<sha>` after a `write-tree` printed it,
 * `commit:<sha>` after a `read-tree --reset` of that commit). Called right after git wrote it, before
 * anything else can. An unreadable index is forgotten. `markedAt`: the file system's clock then (see
 * `markIndexClock`).
 */
export function recordIndex(path: string, holds: string, markedAt?: bigint): void {
  const digest = indexDigest(path);
  known.delete(path);
  if (digest === undefined) return;
  if (known.size >= maximumKnown) known.clear();
  known.set(path, { holds, digest, ...(markedAt === undefined ? {} : { markedAt }) });
}

/** True when the index file `path` is, byte for byte, the one recorded as holding `holds`. */
export function indexHolds(path: string, holds: string): boolean {
  const entry = known.get(path);
  return entry !== undefined && entry.holds === holds && indexDigest(path) === entry.digest;
}

/** What the index file `path` holds when it is, byte for byte, the one recorded (`commit:<sha>`...). */
export function heldBy(path: string): string | undefined {
  const entry = known.get(path);
  return entry !== undefined && indexDigest(path) === entry.digest ? entry.holds : undefined;
}

/** What the index file `path` was last recorded as holding, without reading it (no proof that it still does). */
export function knownIndexHolding(path: string): string | undefined {
  return known.get(path)?.holds;
}

/** Forgets what `path` held (the index is about to change, or is gone). */
export function forgetIndex(path: string): void {
  known.delete(path);
}

/**
 * Marks the recorded index file `path` with `clock`, a file-system time (ns) taken after git wrote the
 * checkout's files and that index, and before anything but loopwright could write in the checkout (a
 * gate, a setup command): a file whose change time is still the one the index recorded, and earlier than
 * the mark, has not changed since (untouched-checkout.ts). The first mark stands: a later one could come
 * after a change. Nothing is marked unless the index is byte for byte the one recorded.
 */
export function markIndexClock(path: string, clock: bigint): void {
  const entry = known.get(path);
  if (entry === undefined || entry.markedAt !== undefined) return;
  if (indexDigest(path) === entry.digest) entry.markedAt = clock;
}

/**
 * The bytes of the index file `path`, what it holds and its clock mark, when it is byte for byte the one
 * recorded and was marked since; else undefined.
 */
export function markedIndex(path: string): { bytes: Buffer; holds: string; markedAt: bigint } | undefined {
  const entry = known.get(path);
  if (entry?.markedAt === undefined) return undefined;
  const bytes = indexBytes(path);
  if (bytes === undefined || digestOf(bytes) !== entry.digest) return undefined;
  return { bytes, holds: entry.holds, markedAt: entry.markedAt };
}

function indexDigest(path: string): string | undefined {
  const bytes = indexBytes(path);
  return bytes === undefined ? undefined : digestOf(bytes);
}

function indexBytes(path: string): Buffer | undefined {
  try {
    return readFileSync(path);
  } catch {
    return undefined;
  }
}

function digestOf(bytes: Buffer): string {
  return createHash("sha256").update(bytes).digest("hex");
}

/**
 * The arguments of the one `git ls-files` that lists what differs between a checkout and its index:
 * tracked files changed (content or mode, compared by content where the stat data differ) or deleted,
 * untracked files that are not ignored, and untracked folders (empty ones, nested repositories) as
 * `folder/`. An empty listing means `add --all` would stage nothing new (the index's tree is the
 * snapshot's) and `clean -ffd` would remove nothing: clean removes only untracked, non-ignored files
 * and folders, each of which this lists (a folder holding only ignored files may be listed although
 * clean keeps it: a listing that is not empty only sends the caller to the full git work).
 */
export const pendingListing: readonly string[] = [
  "ls-files",
  "-z",
  "--modified",
  "--deleted",
  "--others",
  "--directory",
  "--exclude-standard",
];
