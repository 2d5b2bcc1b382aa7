/**
 * The tracked files `git diff-files --diff-filter=D` lists as deleted, without starting git, for the
 * small index files loopwright's checkouts use: the index's paths read from the file itself (format
 * version 2, or 3 without extended entries), each missing when a folder on its way is not a real folder
 * (a symlink, a file, nothing), its own `lstat` fails (whatever the error), or it is a folder and the
 * entry no submodule. (`ls-files --deleted` looks
 * through a symlinked folder: a gate could hide a tracked folder's files behind one.) Starting git
 * costs far more than reading a small index and a few lstats. Anything this reader is not
 * sure of (another version, an extended entry, a split or sparse index, a large index, a truncated or
 * damaged file) is no answer: the caller asks git. The same reader gives the folders holding the
 * index's paths, whose stray files (stray-checkout-files.ts) `checkOut` removes, for an index of any size.
 */
import { createHash } from "node:crypto";
import {
  closeSync,
  constants,
  fstatSync,
  lstatSync,
  openSync,
  readFileSync,
  readSync,
} from "../files/node-fs.ts";
import {
  attributesName,
  strayCheckoutFiles,
  trackedFolders as trackedFoldersOf,
} from "./stray-checkout-files.ts";

/** More entries than this are listed by git (its lstats cost less than a process start for fewer). */
export const maximumIndexEntries = 2000;

/** An index file's signature ("DIRC") and the size of its header. */
const signature = 0x44495243;
const headerBytes = 12;
/** ctime, mtime (8 bytes each), dev, ino, mode, uid, gid, size (4 each): before the object id. */
const statBytes = 40;
/** Where the entry's mode is among those, its object type bits, and the type of a submodule. */
const modeAt = 24;
const typeBits = 0o170000;
const gitlinkType = 0o160000;
const regularType = 0o100000;
/** The entry flags after the object id: bit 14 marks an extended entry, the low 12 bits the name's length. */
const extendedFlag = 0x4000;

/**
 * How many entries the index file at `path` holds, from its header; undefined when it cannot be read
 * or is not an index of version 2, 3 or 4.
 */
export function indexEntryCount(path: string): number | undefined {
  let descriptor: number | undefined;
  try {
    descriptor = openSync(path, "r");
    const header = Buffer.alloc(headerBytes);
    if (readSync(descriptor, header, 0, headerBytes, 0) !== headerBytes) return undefined;
    if (header.readUInt32BE(0) !== signature) return undefined;
    const version = header.readUInt32BE(4);
    return version >= 2 && version <= 4 ? header.readUInt32BE(8) : undefined;
  } catch {
    return undefined;
  } finally {
    if (descriptor !== undefined) closeSync(descriptor);
  }
}

/**
 * The paths of the index file `indexFile` (object ids of `hashBytes` bytes: 20 for SHA-1, 32 for
 * SHA-256) that `lstat` does not find in `checkout`, as `git ls-files --deleted` lists them (raw bytes,
 * sorted as the index is); undefined when the index is not one this reader is sure of (see above).
 */
export function missingIndexPaths(
  indexFile: string,
  checkout: string,
  hashBytes: 20 | 32,
  /**
   * Given, the submodule entries whose folder is there are added to `submodules`, and the stray files
   * (stray-checkout-files.ts) of the real folders that hold the index's paths to `strays`.
   */
  found?: { submodules: Buffer[]; strays: Buffer[] },
): Buffer[] | undefined {
  const entries = indexEntries(indexFile, hashBytes, maximumIndexEntries);
  if (!entries) return undefined;
  const folder = Buffer.from(checkout.endsWith("/") ? checkout : `${checkout}/`);
  const realFolders = new Map<string, boolean>([["", true]]);
  const missing: Buffer[] = [];
  const attributes = new Set<string>();
  for (const { name, mode } of entries) {
    let present = onRealFolders(folder, name, realFolders);
    try {
      // A folder where a file (not a submodule) was is that file deleted, as git sees it.
      if (present && lstatSync(Buffer.concat([folder, name])).isDirectory()) {
        present = (mode & typeBits) === gitlinkType;
        if (present) found?.submodules.push(Buffer.from(name));
      }
    } catch {
      present = false;
    }
    if (!present) missing.push(Buffer.from(name));
    if (isAttributesFile(name))
      attributes.add(name.toString("latin1", 0, Math.max(name.lastIndexOf(0x2f), 0)));
  }
  if (found) {
    const real = [...realFolders].filter(([, isReal]) => isReal).map(([key]) => key);
    found.strays.push(...strayCheckoutFiles(checkout, real, attributes));
  }
  return missing;
}

/**
 * The stray files (stray-checkout-files.ts) of `checkout`'s folders that hold the paths of the index
 * file `indexFile`, however many entries it has (only the folders are looked at); undefined when the
 * index is not one this reader is sure of (see above: the caller asks git).
 */
export function indexStrayFiles(
  indexFile: string,
  checkout: string,
  hashBytes: 20 | 32,
): Buffer[] | undefined {
  const entries = indexEntries(indexFile, hashBytes, Number.POSITIVE_INFINITY);
  if (!entries) return undefined;
  const { folders, attributes } = trackedFolders(entries);
  return strayCheckoutFiles(checkout, folders, attributes);
}

/** The folders holding the `entries` and those where a `.gitattributes` is tracked (latin1 names). */
function trackedFolders(entries: readonly { name: Buffer }[]) {
  return trackedFoldersOf(entries.map(({ name }) => name.toString("latin1")));
}

const attributesBytes = Buffer.from(`/${attributesName}`);

/**
 * Whether every `.gitignore` that the index file `indexFile` tracks (its name in any case: a file system
 * that ignores case opens `.GITIGNORE` for git) is in `checkout` a regular file, reached through real
 * folders only and opened without following a link, whose bytes are exactly its blob's: then git reads
 * the same ignore rules there as in the index. False whenever this reader is not sure (an index it does
 * not take or a large one, see above; a tracked one that is a link or a submodule, missing, or changed).
 */
export function ignoreFilesAsIndexed(indexFile: string, checkout: string, hashBytes: 20 | 32): boolean {
  const entries = indexEntries(indexFile, hashBytes, maximumIndexEntries);
  if (!entries) return false;
  const folder = Buffer.from(checkout.endsWith("/") ? checkout : `${checkout}/`);
  const realFolders = new Map<string, boolean>([["", true]]);
  for (const { name, mode, id } of entries) {
    if (!isIgnoreFile(name)) continue;
    if ((mode & typeBits) !== regularType || !onRealFolders(folder, name, realFolders)) return false;
    const bytes = regularFileBytes(Buffer.concat([folder, name]));
    if (bytes === undefined) return false;
    const blob = createHash(hashBytes === 20 ? "sha1" : "sha256")
      .update(`blob ${bytes.length}\0`)
      .update(bytes)
      .digest();
    if (!blob.equals(id)) return false;
  }
  return true;
}

/**
 * What of an index file a `git clean` of its checkout depends on beyond the ignore rules: its tracked
 * `.gitignore` entries (name, mode and blob, in index order), every path it tracks, and whether it tracks
 * a submodule. See `cleanAfterReadTreeIdle`.
 */
export interface CleanShape {
  ignoreFiles: string[];
  paths: Set<string>;
  submodules: boolean;
}

/** The `CleanShape` of the index file `indexFile`; undefined when this reader is not sure of it (see above). */
export function cleanShape(indexFile: string, hashBytes: 20 | 32): CleanShape | undefined {
  const entries = indexEntries(indexFile, hashBytes, maximumIndexEntries);
  if (!entries) return undefined;
  const shape: CleanShape = { ignoreFiles: [], paths: new Set(), submodules: false };
  for (const { name, mode, id } of entries) {
    if ((mode & typeBits) === gitlinkType) shape.submodules = true;
    if (isIgnoreFile(name))
      shape.ignoreFiles.push(`${mode.toString(8)} ${id.toString("hex")} ${name.toString("latin1")}`);
    shape.paths.add(name.toString("latin1"));
  }
  return shape;
}

/**
 * Whether a clean run after read-tree replaced the index of shape `before` by one of shape `after`
 * removes nothing that a clean run just before it (against `before`, under the same ignore rules, no
 * untracked .gitignore met) did not remove: the same tracked .gitignore entries (the rules are those
 * files: read-tree writes the same bytes back), every path `before` tracks still tracked, and no
 * submodule on either side (read-tree leaves a dropped submodule's folder, which only a clean removes).
 * A dropped path is never taken on trust: read-tree cannot remove a folder a gate put in a tracked
 * file's place (the first clean skipped it, as git's clean skips a listed path the index tracks), nor a
 * file in a folder the gate made read-only, and a folder left untracked would be cleaned as a whole.
 */
export function cleanAfterReadTreeIdle(before: CleanShape, after: CleanShape): boolean {
  if (before.submodules || after.submodules) return false;
  if (before.ignoreFiles.length !== after.ignoreFiles.length) return false;
  if (before.ignoreFiles.some((entry, index) => entry !== after.ignoreFiles[index])) return false;
  for (const path of before.paths) if (!after.paths.has(path)) return false;
  return true;
}

const ignoreName = ".gitignore";

/** Whether the index path `name` is a `.gitignore` (at the root or in a folder), in any case. */
function isIgnoreFile(name: Buffer): boolean {
  const start = name.length - ignoreName.length;
  if (start < 0 || (start > 0 && name[start - 1] !== 0x2f)) return false;
  return name.toString("latin1", start).toLowerCase() === ignoreName;
}

/** The bytes of the regular file at `path`, opened without following a link; undefined for anything else. */
function regularFileBytes(path: Buffer): Buffer | undefined {
  let descriptor: number | undefined;
  try {
    descriptor = openSync(path, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK);
    if (!fstatSync(descriptor).isFile()) return undefined;
    return readFileSync(descriptor);
  } catch {
    return undefined;
  } finally {
    if (descriptor !== undefined) closeSync(descriptor);
  }
}

/** Whether the index path `name` is a `.gitattributes` (at the root or in a folder). */
function isAttributesFile(name: Buffer): boolean {
  const length = attributesBytes.length;
  return name.length === length - 1
    ? attributesBytes.compare(name, 0, length - 1, 1) === 0
    : name.length > length && attributesBytes.compare(name, name.length - length) === 0;
}

/**
 * The entries (name, mode) of the index file at `path`, of at most `maximum` entries, when it is one
 * this reader is sure of (see above); else undefined.
 */
function indexEntries(indexFile: string, hashBytes: 20 | 32, maximum: number): IndexEntry[] | undefined {
  let bytes: Buffer;
  try {
    bytes = readFileSync(indexFile);
  } catch {
    return undefined;
  }
  return parseIndexEntries(bytes, hashBytes, maximum);
}

/** One entry of an index file, its fields views into the file's bytes. */
export interface IndexEntry {
  name: Buffer;
  mode: number;
  id: Buffer;
  /** The stat data git recorded: ctime, mtime (seconds, nanoseconds), dev, ino, mode, uid, gid, size. */
  stat: Buffer;
  /** The entry's flags: assume-valid (bit 15), stage (bits 12–13), the name's length. */
  flags: number;
}

/**
 * The entries of an index file's bytes `bytes` (object ids of `hashBytes` bytes), of at most `maximum`
 * entries, when it is one this reader is sure of (see above); else undefined.
 */
export function parseIndexEntries(
  bytes: Buffer,
  hashBytes: 20 | 32,
  maximum: number,
): IndexEntry[] | undefined {
  if (bytes.length < headerBytes || bytes.readUInt32BE(0) !== signature) return undefined;
  const version = bytes.readUInt32BE(4);
  const count = bytes.readUInt32BE(8);
  if ((version !== 2 && version !== 3) || count > maximum) return undefined;
  const nameStart = statBytes + hashBytes + 2;
  const entries: IndexEntry[] = [];
  let offset = headerBytes;
  for (let entry = 0; entry < count; entry++) {
    if (offset + nameStart > bytes.length) return undefined;
    const flags = bytes.readUInt16BE(offset + statBytes + hashBytes);
    if (flags & extendedFlag) return undefined;
    const end = bytes.indexOf(0, offset + nameStart);
    if (end < 0) return undefined;
    const name = bytes.subarray(offset + nameStart, end);
    // The length in the flags is the name's, up to 0xFFF (longer names say 0xFFF).
    if ((flags & 0xfff) !== Math.min(name.length, 0xfff) || name.length === 0) return undefined;
    entries.push({
      name,
      mode: bytes.readUInt32BE(offset + modeAt),
      id: bytes.subarray(offset + statBytes, offset + statBytes + hashBytes),
      stat: bytes.subarray(offset, offset + statBytes),
      flags,
    });
    // Padded with 1 to 8 NULs to a multiple of 8 bytes.
    offset += (nameStart + name.length + 8) & ~7;
  }
  return onlyOwnEntries(bytes, offset, hashBytes) ? entries : undefined;
}

/** Whether every folder on `name`'s way in `folder` is a real folder (answers kept in `known`). */
function onRealFolders(folder: Buffer, name: Buffer, known: Map<string, boolean>): boolean {
  for (let slash = name.indexOf(0x2f); slash >= 0; slash = name.indexOf(0x2f, slash + 1)) {
    const key = name.toString("latin1", 0, slash);
    let real = known.get(key);
    if (real === undefined) {
      try {
        real = lstatSync(Buffer.concat([folder, name.subarray(0, slash)])).isDirectory();
      } catch {
        real = false;
      }
      known.set(key, real);
    }
    if (!real) return false;
  }
  return true;
}

/**
 * Whether the extensions after the entries (from `offset` to the closing checksum) are all well formed
 * and none says that other entries live elsewhere: a split index (`link`: most entries are in a shared
 * file) or a sparse one (`sdir`).
 */
function onlyOwnEntries(bytes: Buffer, offset: number, hashBytes: number): boolean {
  const end = bytes.length - hashBytes;
  let at = offset;
  while (at < end) {
    if (at + 8 > end) return false;
    const name = bytes.toString("latin1", at, at + 4);
    if (name === "link" || name === "sdir") return false;
    at += 8 + bytes.readUInt32BE(at + 4);
  }
  return at === end;
}
