/**
 * Digesting a gate's log file: streamed through the incremental parser, so memory stays bounded
 * whatever the size of the log.
 */

import { open } from "node:fs/promises";
import { closeSync, constants, fstatSync, openSync, readSync } from "../../files/node-fs.ts";
import { chunkBytes, createDigestParser, type DigestParser } from "./digest-parser.ts";
import type { Digest, DigestOptions } from "./digest-types.ts";

/**
 * Bytes read from the file at a time. Two buffers of this size (the parser's `readBuffers`, scanned
 * where they are) take turns: the next piece is read (on libuv's thread pool) while the parser scans
 * the one before, so reading costs no parsing time.
 */
export const digestReadBytes = chunkBytes;

/** Only a regular file, never through a link, and without waiting for a writer (a FIFO). */
const readFlags = () => constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK;

/**
 * The digest of the log at `path` (see `Digest`), read as a stream of 1 MiB pieces. `logPath` in the
 * digest is `options.logPath`, else `path`. Never rejects for a log it cannot read: the digest then
 * holds what was read before the failure and `readError` says why.
 */
export async function digestLog(path: string, options: DigestOptions = {}): Promise<Digest> {
  const parser = createDigestParser({ ...options, logPath: options.logPath ?? path });
  let readError: string | undefined;
  try {
    // A log replaced by a FIFO or a link to /dev/zero would never end.
    if (!readSmallLog(path, parser)) await readLogInPieces(path, parser);
  } catch (error) {
    readError = error instanceof Error ? error.message : String(error);
  }
  const digest = parser.end();
  return readError ? { ...digest, readError } : digest;
}

/**
 * Gives `parser` the log at `path` and returns true when it is under one piece (as most gates' logs
 * are): read synchronously, in microseconds from the page cache, rather than through four round trips
 * of libuv's thread pool (open, stat, read, close) on the way to the gate's result. Returns false,
 * having read nothing, for a larger log. Throws for a path that is no regular file.
 */
function readSmallLog(path: string, parser: DigestParser): boolean {
  const descriptor = openSync(path, readFlags());
  try {
    const stats = fstatSync(descriptor);
    if (!stats.isFile()) throw new Error(`not a regular file: ${path}`);
    if (stats.size >= digestReadBytes) return false;
    // To its end as it is now: a log still growing is read in pieces all the same, as below.
    for (let turn = 0; ; turn = 1 - turn) {
      const buffer = parser.readBuffers[turn];
      const bytesRead = readSync(descriptor, buffer, 0, digestReadBytes, null);
      if (bytesRead === 0) return true;
      parser.write(buffer.subarray(0, bytesRead));
    }
  } finally {
    closeSync(descriptor);
  }
}

/** Gives `parser` the log at `path`, each piece read while the parser scans the one before. */
async function readLogInPieces(path: string, parser: DigestParser): Promise<void> {
  const handle = await open(path, readFlags());
  try {
    if (!(await handle.stat()).isFile()) throw new Error(`not a regular file: ${path}`);
    const buffers = parser.readBuffers;
    let reading = handle.read(buffers[0], 0, digestReadBytes, null);
    try {
      for (let turn = 0; ; turn = 1 - turn) {
        const { bytesRead } = await reading;
        if (bytesRead === 0) break;
        // Reads are issued one at a time, so they follow each other in the file.
        reading = handle.read(buffers[1 - turn], 0, digestReadBytes, null);
        parser.write(buffers[turn].subarray(0, bytesRead));
      }
    } finally {
      // A read still under way (after a throw) must end before the file closes.
      await reading.catch(() => undefined);
    }
  } finally {
    await handle.close();
  }
}
