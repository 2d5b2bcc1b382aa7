/**
 * V8 code caches of scripts compiled with node:vm, kept in files (the spec parser's bundle, the hook
 * bundle). V8 checks a cache against its own version and flags and the script's length only, and in a
 * release build checks no checksum of its data: a cache made from another text of the same length runs
 * that text's code, and damaged data can crash the process (SIGTRAP, SIGSEGV). So a file holds the
 * script's text, compared byte for byte with the one about to run, and V8's data twice, the two copies
 * compared: damage (a disk error, a bad copy, an edit) reaches one copy, not both alike. Both checks are
 * comparisons of bytes, not hashes: a hook must not load node:crypto (38 modules, ~5 ms) nor node:zlib.
 *
 * A file is read only when it is a regular file (opened without following a symbolic link and without
 * blocking, its type checked on the opened descriptor: a FIFO put in its place cannot hang the command)
 * and no larger than `maximumCacheBytes`. It is written whole or not at all: into a new temporary file
 * of a random name (created exclusively: a symbolic link planted there is refused, never followed),
 * renamed over it. Nothing here throws: a cache that cannot be read or written changes nothing but speed.
 *
 * Builtins come from process.getBuiltinModule: bin/loopwright.js loads this module on its own on the
 * hook path, where every module counts (see node-fs.ts for why not `import "node:fs"`).
 */
const fs = process.getBuiltinModule("node:fs");
const { dirname } = process.getBuiltinModule("node:path");

/** The file's first bytes; then the text's length and the data's (4 bytes each), the text, the data twice. */
const magic = Buffer.from("loopwright code cache 2\n");
const headerBytes = magic.length + 8;
/** A code cache file larger than this is not read (the spec parser's is under 2 MB). */
export const maximumCacheBytes = 64 * 1024 * 1024;

/**
 * How much of the file is read at a time where it is only compared (the text, the data's second copy):
 * only the data V8 gets is read whole. Memory a process touches for the first time costs a page fault a
 * 4 KB page, which on the VM this was measured on (pti on) made reading the spec parser's 1.7 MB cache
 * whole cost 7-10 ms of CPU against 0.4 ms for the same read into memory already touched.
 */
const comparedChunkBytes = 64 * 1024;

/**
 * V8's data kept in `file` for the script whose text is `source`, or undefined. With `scratch` as large as
 * the data, the data is read into it (the answer is then a view of it) once the text compared equal:
 * memory the process has touched already, such as `source` itself once its text was taken, reads without
 * the page faults of fresh memory (~0.7 ms for the CLI bundle's 0.9 MB on the VM measured). Whatever the
 * answer, `scratch` then holds no known bytes.
 */
export function readCodeCache(file: string, source: Buffer, scratch?: Buffer): Buffer | undefined {
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
    const header = Buffer.allocUnsafe(headerBytes);
    if (!readExactly(descriptor, header, 0)) return undefined;
    if (!header.subarray(0, magic.length).equals(magic)) return undefined;
    const sourceBytes = header.readUInt32LE(magic.length);
    const dataBytes = header.readUInt32LE(magic.length + 4);
    if (sourceBytes !== source.length || headerBytes + sourceBytes + 2 * dataBytes !== stats.size)
      return undefined;
    const chunk = Buffer.allocUnsafe(Math.min(comparedChunkBytes, Math.max(sourceBytes, dataBytes, 1)));
    if (!sameAsFile(descriptor, source, headerBytes, chunk)) return undefined;
    const dataStart = headerBytes + sourceBytes;
    const data =
      scratch !== undefined && scratch.length >= dataBytes
        ? scratch.subarray(0, dataBytes)
        : Buffer.allocUnsafe(dataBytes);
    if (!readExactly(descriptor, data, dataStart)) return undefined;
    return sameAsFile(descriptor, data, dataStart + dataBytes, chunk) ? data : undefined;
  } catch {
    return undefined;
  } finally {
    fs.closeSync(descriptor);
  }
}

/** Fills `buffer` from the file at `position`; false when the file ends first. */
function readExactly(descriptor: number, buffer: Buffer, position: number): boolean {
  let length = 0;
  while (length < buffer.length) {
    const read = fs.readSync(descriptor, buffer, length, buffer.length - length, position + length);
    if (read === 0) return false;
    length += read;
  }
  return true;
}

/** Whether the file holds `expected` at `position`, read through `chunk` a piece at a time. */
function sameAsFile(descriptor: number, expected: Buffer, position: number, chunk: Buffer): boolean {
  for (let offset = 0; offset < expected.length; offset += chunk.length) {
    const piece = chunk.subarray(0, Math.min(chunk.length, expected.length - offset));
    if (!readExactly(descriptor, piece, position + offset)) return false;
    if (!piece.equals(expected.subarray(offset, offset + piece.length))) return false;
  }
  return true;
}

/** Keeps V8's `data` for the script whose text is `source` in `file` (see above); never throws. */
export function writeCodeCache(file: string, source: Buffer, data: Buffer): void {
  const temporary = `${file}.${Math.random().toString(36).slice(2)}${process.pid}.tmp`;
  let created = false;
  try {
    fs.mkdirSync(dirname(file), { recursive: true });
    const descriptor = fs.openSync(temporary, "wx", 0o600);
    created = true;
    try {
      const lengths = Buffer.alloc(8);
      lengths.writeUInt32LE(source.length, 0);
      lengths.writeUInt32LE(data.length, 4);
      fs.writeFileSync(descriptor, Buffer.concat([magic, lengths, source, data, data]));
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

/** FNV-1a (32 bits) of `text`'s UTF-16 code units, in hex: a short stable file name, not a check. */
export function nameHash(text: string): string {
  let hash = 0x811c9dc5;
  for (let index = 0; index < text.length; index++)
    hash = Math.imul(hash ^ text.charCodeAt(index), 0x01000193);
  return (hash >>> 0).toString(16).padStart(8, "0");
}
