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

/** Index file → what it holds (`tree:<sha>` or `commit:<sha>`) and the sha256 of its bytes. */
const known = new Map<string, { holds: string; digest: string }>();
/** A service runs many loops, each with a few indexes: bounded, then started afresh. */
const maximumKnown = 10_000;

/**
 * Records that the index file `path` holds `holds` (`tree:<sha>` after a `write-tree` printed it,
 * `commit:<sha>` after a `read-tree --reset` of that commit). Called right after git wrote it, before
 * anything else can. An unreadable index is forgotten.
 */
export function recordIndex(path: string, holds: string): void {
  const digest = indexDigest(path);
  known.delete(path);
  if (digest === undefined) return;
  if (known.size >= maximumKnown) known.clear();
  known.set(path, { holds, digest });
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

/** Forgets what `path` held (the index is about to change, or is gone). */
export function forgetIndex(path: string): void {
  known.delete(path);
}

function indexDigest(path: string): string | undefined {
  try {
    return createHash("sha256").update(readFileSync(path)).digest("hex");
  } catch {
    return undefined;
  }
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
