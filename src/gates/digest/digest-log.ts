/**
 * Digesting a gate's log file: streamed through the incremental parser, so memory stays bounded
 * whatever the size of the log.
 */
import { constants } from "node:fs";
import { open } from "node:fs/promises";
import { createDigestParser } from "./digest-parser.ts";
import type { Digest, DigestOptions } from "./digest-types.ts";

/** Bytes read from the file at a time. */
const readBytes = 1024 * 1024;

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
      const buffer = Buffer.allocUnsafe(readBytes);
      for (;;) {
        const { bytesRead } = await handle.read(buffer, 0, buffer.length, null);
        if (bytesRead === 0) break;
        parser.write(buffer.subarray(0, bytesRead));
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
