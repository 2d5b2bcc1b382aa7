/**
 * Reading a file someone else controls (a spec, a maker's LESSONS.md) without hanging or swallowing
 * memory: only a regular file is read, never a FIFO, socket or device (the open cannot block, the
 * type is checked on the opened descriptor), and never more than a size cap.
 */
import type { Stats } from "node:fs";
import type { FileHandle } from "node:fs/promises";
import { closeSync, constants, fstatSync, openSync, readSync } from "./node-fs.ts";

/** The text of the file, or why it was not read (one phrase, e.g. `not a regular file (a FIFO)`). */
export type RegularFileText = { ok: true; text: string } | RegularFileRefusal;

/** Why a file was not read: one phrase, and the error code (`ENOENT`, `ELOOP`, `ENOTREG`, `EFBIG`, ...). */
export type RegularFileRefusal = { ok: false; problem: string; code?: string };

export interface ReadRegularFileOptions {
  /** Largest size read, in bytes; a larger file is refused whole. */
  maximumBytes: number;
  /** Refuse a symbolic link at the last component instead of following it. */
  noFollow?: boolean;
  /** How the bytes become text; default UTF-8 (latin1 keeps every byte, for binary files). */
  encoding?: BufferEncoding;
}

/**
 * Reads a regular file as text (UTF-8 unless told otherwise). Opens with O_NONBLOCK (a FIFO without a writer does not block the
 * open) and checks the type and size with fstat on the opened descriptor, so a file swapped between a
 * check and the read cannot slip through. Never throws for a runtime failure.
 */
export async function readRegularFile(
  path: string,
  options: ReadRegularFileOptions,
): Promise<RegularFileText> {
  let handle: FileHandle;
  try {
    handle = await openAsync(path, openFlags(options));
  } catch (error) {
    return failure(error);
  }
  try {
    const refused = refusal(await handle.stat(), options.maximumBytes);
    if (refused) return refused;
    // Read one byte more than allowed: a file that grew since fstat is refused, not cut.
    const buffer = Buffer.alloc(options.maximumBytes + 1);
    let length = 0;
    while (length < buffer.length) {
      const { bytesRead } = await handle.read(buffer, length, buffer.length - length, length);
      if (bytesRead === 0) break;
      length += bytesRead;
    }
    return decoded(buffer, length, options);
  } catch (error) {
    return failure(error);
  } finally {
    await handle.close().catch(() => {});
  }
}

/** `readRegularFile` for synchronous callers (same checks, same answers). */
export function readRegularFileSync(path: string, options: ReadRegularFileOptions): RegularFileText {
  let descriptor: number;
  try {
    descriptor = openSync(path, openFlags(options));
  } catch (error) {
    return failure(error);
  }
  try {
    const refused = refusal(fstatSync(descriptor), options.maximumBytes);
    if (refused) return refused;
    const buffer = Buffer.alloc(options.maximumBytes + 1);
    let length = 0;
    while (length < buffer.length) {
      const bytesRead = readSync(descriptor, buffer, length, buffer.length - length, length);
      if (bytesRead === 0) break;
      length += bytesRead;
    }
    return decoded(buffer, length, options);
  } catch (error) {
    return failure(error);
  } finally {
    closeSync(descriptor);
  }
}

/**
 * Part of a regular file: `bytes` from `offset`, and the file's size and modification time when it was
 * opened (together they name the version read, for a cache of what was derived from it).
 */
export type RegularFileRange =
  | { ok: true; bytes: Buffer; offset: number; totalBytes: number; modifiedMs: number }
  | RegularFileRefusal;

/** Which part of a file: at most `length` bytes from `offset`, or the last `lastBytes` bytes. */
export type RegularFilePart = { offset: number; length: number } | { lastBytes: number };

/**
 * Reads part of a regular file of any size, with the checks of `readRegularFile` (O_NONBLOCK, type
 * checked on the opened descriptor, O_NOFOLLOW with `noFollow`); a file larger than `maximumTotalBytes`
 * (default: no limit) is refused whole (`EFBIG`) before a byte is read. An offset at or past the end
 * gives no bytes; the caller decides whether that is an error. Never throws for a runtime failure.
 */
export async function readRegularFileRange(
  path: string,
  options: RegularFilePart & { noFollow?: boolean; maximumTotalBytes?: number },
): Promise<RegularFileRange> {
  let handle: FileHandle;
  try {
    handle = await openAsync(path, openFlags(options));
  } catch (error) {
    return failure(error);
  }
  try {
    const stats = await handle.stat();
    const refused = refusal(stats, options.maximumTotalBytes ?? Number.POSITIVE_INFINITY);
    if (refused) return refused;
    const offset = "lastBytes" in options ? Math.max(0, stats.size - options.lastBytes) : options.offset;
    const asked = "lastBytes" in options ? options.lastBytes : options.length;
    const wanted = Math.max(0, Math.min(asked, stats.size - offset));
    const buffer = Buffer.alloc(wanted);
    let length = 0;
    while (length < wanted) {
      const { bytesRead } = await handle.read(buffer, length, wanted - length, offset + length);
      if (bytesRead === 0) break;
      length += bytesRead;
    }
    return {
      ok: true,
      bytes: buffer.subarray(0, length),
      offset,
      totalBytes: stats.size,
      modifiedMs: stats.mtimeMs,
    };
  } catch (error) {
    return failure(error);
  } finally {
    await handle.close().catch(() => {});
  }
}

/** `1 MiB`, `50.0 MiB`, `8 KiB`, `12 B`: whole numbers without decimals. */
export function formatBytes(bytes: number): string {
  const units: [number, string][] = [
    [1024 * 1024 * 1024, "GiB"],
    [1024 * 1024, "MiB"],
    [1024, "KiB"],
  ];
  for (const [size, unit] of units) {
    if (bytes >= size)
      return bytes % size === 0 ? `${bytes / size} ${unit}` : `${(bytes / size).toFixed(1)} ${unit}`;
  }
  return `${bytes} B`;
}

function openFlags(options: { noFollow?: boolean }): number {
  return constants.O_RDONLY | constants.O_NONBLOCK | (options.noFollow ? constants.O_NOFOLLOW : 0);
}

/** Why an opened file is not read: not a regular file, or larger than the cap; undefined to read it. */
function refusal(stats: Stats, maximumBytes: number): RegularFileRefusal | undefined {
  if (stats.isDirectory()) return { ok: false, problem: "is a folder, not a file", code: "EISDIR" };
  if (!stats.isFile())
    return { ok: false, problem: `not a regular file (${kindOf(stats)})`, code: "ENOTREG" };
  if (stats.size > maximumBytes) {
    return {
      ok: false,
      problem: `too large (${formatBytes(stats.size)}; at most ${formatBytes(maximumBytes)})`,
      code: "EFBIG",
    };
  }
  return undefined;
}

function decoded(buffer: Buffer, length: number, options: ReadRegularFileOptions): RegularFileText {
  if (length > options.maximumBytes) {
    return { ok: false, problem: `too large (at most ${formatBytes(options.maximumBytes)})`, code: "EFBIG" };
  }
  return { ok: true, text: buffer.subarray(0, length).toString(options.encoding ?? "utf8") };
}

function kindOf(stats: Stats): string {
  if (stats.isFIFO()) return "a FIFO";
  if (stats.isSocket()) return "a socket";
  if (stats.isCharacterDevice() || stats.isBlockDevice()) return "a device";
  return "not a file";
}

function failure(error: unknown): RegularFileRefusal {
  const code = (error as NodeJS.ErrnoException).code;
  if (code === "ENOENT") return { ok: false, problem: "no such file", code };
  if (code === "EISDIR") return { ok: false, problem: "is a folder, not a file", code };
  if (code === "ELOOP") return { ok: false, problem: "is a symbolic link, not a file", code };
  return { ok: false, problem: `cannot read (${code ?? String(error)})`, code };
}

/**
 * fs/promises' `open`, loaded at the first asynchronous read: the module (with the readline modules it
 * loads) stays off the commands that read only synchronously (`validate` of a cached spec: 8 builtin
 * modules).
 */
function openAsync(path: string, flags: number): Promise<FileHandle> {
  return process.getBuiltinModule("node:fs/promises").open(path, flags);
}
