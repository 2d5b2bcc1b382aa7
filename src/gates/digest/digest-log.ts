/**
 * Digesting a gate's log file: streamed through the incremental parser, so memory stays bounded
 * whatever the size of the log.
 */

import { open } from "node:fs/promises";
import { constants } from "../../files/node-fs.ts";
import { chunkBytes, createDigestParser } from "./digest-parser.ts";
import type { Digest, DigestOptions } from "./digest-types.ts";

/**
 * Bytes read from the file at a time. Two buffers of this size (the parser's `readBuffers`, scanned
 * where they are) take turns: the next piece is read (on libuv's thread pool) while the parser scans
 * the one before, so reading costs no parsing time.
 */
export const digestReadBytes = chunkBytes;

/**
 * The digest of the log at `path` (see `Digest`), read as a stream of 1 MiB pieces. `logPath` in the
 * digest is `options.logPath`, else `path`. Never rejects for a log it cannot read: the digest then
 * holds what was read before the failure and `readError` says why.
 */
export async function digestLog(path: string, options: DigestOptions = {}): Promise<Digest> {
  const parser = createDigestParser({ ...options, logPath: options.logPath ?? path });
  let readError: string | undefined;
  try {
    // Only a regular file, never through a link: a log replaced by a FIFO or a link to /dev/zero would never end.
    const handle = await open(path, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK);
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
  } catch (error) {
    readError = error instanceof Error ? error.message : String(error);
  }
  const digest = parser.end();
  return readError ? { ...digest, readError } : digest;
}
