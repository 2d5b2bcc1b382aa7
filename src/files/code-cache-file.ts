/**
 * V8 code caches of scripts compiled with node:vm, kept in files (the spec parser's bundle, the hook
 * bundle). V8 checks a cache against its own version and flags and the script's length only, and in a
 * release build checks no checksum of its data: a cache made from another text of the same length runs
 * that text's code, and a damaged one can crash the process. So a file holds, after a magic line, the
 * SHA-256 of the script's text and of the data, and is used only when both match.
 *
 * A file is read only when it is a regular file (opened without following a symbolic link and without
 * blocking, its type checked on the opened descriptor: a FIFO put in its place cannot hang the command)
 * and no larger than `maximumCacheBytes`. It is written whole or not at all: into a new temporary file
 * of a random name (created exclusively: a symbolic link planted there is refused, never followed),
 * renamed over it. Nothing here throws: a cache that cannot be read or written changes nothing but speed.
 *
 * Builtins come from process.getBuiltinModule: this module is loaded on its own by bin/loopwright.js on
 * the hook path, where every module counts (see node-fs.ts for why not `import "node:fs"`).
 */
const fs = process.getBuiltinModule("node:fs");
const { dirname } = process.getBuiltinModule("node:path");
const { hash, randomBytes } = process.getBuiltinModule("node:crypto");

const magic = Buffer.from("loopwright code cache 1\n");
const digestBytes = 32;
const headerBytes = magic.length + 2 * digestBytes;
/** A code cache larger than this is not read (the spec parser's is under 1 MB). */
export const maximumCacheBytes = 64 * 1024 * 1024;

/** The SHA-256 of a script's text, as the cache files name and hold it. */
export function sourceDigest(source: string | Buffer): Buffer {
  return hash("sha256", source, "buffer");
}

/** V8's data kept in `file` for the script whose text has `digest`, or undefined. */
export function readCodeCache(file: string, digest: Buffer): Buffer | undefined {
  let descriptor: number;
  try {
    const { O_RDONLY, O_NONBLOCK, O_NOFOLLOW } = fs.constants;
    descriptor = fs.openSync(file, O_RDONLY | O_NONBLOCK | O_NOFOLLOW);
  } catch {
    return undefined;
  }
  try {
    const stats = fs.fstatSync(descriptor);
    if (!stats.isFile() || stats.size <= headerBytes || stats.size > maximumCacheBytes) return undefined;
    const stored = Buffer.allocUnsafe(stats.size);
    let length = 0;
    while (length < stored.length) {
      const read = fs.readSync(descriptor, stored, length, stored.length - length, length);
      if (read === 0) return undefined;
      length += read;
    }
    const data = stored.subarray(headerBytes);
    const fileDigest = stored.subarray(magic.length, magic.length + digestBytes);
    const dataDigest = stored.subarray(magic.length + digestBytes, headerBytes);
    if (!stored.subarray(0, magic.length).equals(magic) || !fileDigest.equals(digest)) return undefined;
    return sourceDigest(data).equals(dataDigest) ? data : undefined;
  } catch {
    return undefined;
  } finally {
    fs.closeSync(descriptor);
  }
}

/** Keeps V8's `data` for the script whose text has `digest` in `file` (see above); never throws. */
export function writeCodeCache(file: string, digest: Buffer, data: Buffer): void {
  const temporary = `${file}.${randomBytes(8).toString("hex")}.tmp`;
  let created = false;
  try {
    fs.mkdirSync(dirname(file), { recursive: true });
    const descriptor = fs.openSync(temporary, "wx", 0o600);
    created = true;
    try {
      fs.writeFileSync(descriptor, Buffer.concat([magic, digest, sourceDigest(data), data]));
    } finally {
      fs.closeSync(descriptor);
    }
    fs.renameSync(temporary, file);
  } catch {
    if (created) {
      try {
        fs.rmSync(temporary, { force: true });
      } catch {}
    }
  }
}
