/**
 * A command's log file, written only into a regular file of its own (never through a symbolic or hard
 * link, never into a FIFO a maker planted at its path: see `openLogFile`), and bounded: the first half of the cap is written as it comes, the last half is
 * kept in memory and written at the end, and what was cut between them is said in one line. A log
 * that cannot be written (a full disk, a read-only folder) stops taking writes and says why in
 * `failure()`; it never throws and never makes the command fail.
 */
import {
  close,
  closeSync,
  constants,
  fstatSync,
  ftruncateSync,
  openSync,
  write,
  writeSync,
} from "../files/node-fs.ts";

/** Default cap of one command's log: 16 MiB (`LOOPWRIGHT_LOG_LIMIT` overrides, e.g. `64MiB`, `1048576`). */
export const defaultLogLimitBytes = 16 * 1024 * 1024;

export interface CappedLog {
  write(text: string): void;
  /**
   * Writes what was kept of the end, then `footer` (outside the cap), then closes; resolves even when
   * the file failed.
   */
  close(footer?: string): Promise<void>;
  /** Why the log could not be written, e.g. `log not written: ENOSPC (/path/x.log)`; undefined when fine. */
  failure(): string | undefined;
}

/** The cap from `LOOPWRIGHT_LOG_LIMIT` (bytes, or a number with KiB, MiB or GiB), else the default. */
export function logLimitFromEnvironment(env: NodeJS.ProcessEnv = process.env): number {
  const match = /^\s*(\d+(?:\.\d+)?)\s*(B|KiB|MiB|GiB)?\s*$/i.exec(env.LOOPWRIGHT_LOG_LIMIT ?? "");
  if (!match) return defaultLogLimitBytes;
  const unit = { b: 1, kib: 1024, mib: 1024 ** 2, gib: 1024 ** 3 }[(match[2] ?? "b").toLowerCase()] ?? 1;
  const bytes = Math.floor(Number(match[1]) * unit);
  return bytes >= 1024 ? bytes : defaultLogLimitBytes;
}

/** Opens `path` (truncating, or appending with `append`) as a log of at most `limitBytes` bytes. */
export function openCappedLog(path: string, options: { append?: boolean; limitBytes: number }): CappedLog {
  let failure: string | undefined;
  const fail = (error: NodeJS.ErrnoException) => {
    failure ??= `log not written: ${error.code ?? error.message} (${path})`;
  };
  let file: OrderedWriter | undefined;
  try {
    file = orderedWriter(openLogFile(path, options.append === true), fail);
  } catch (error) {
    fail(error as NodeJS.ErrnoException);
  }
  const headRoom = Math.floor(options.limitBytes / 2);
  const tailRoom = options.limitBytes - headRoom;
  let headBytes = 0;
  const tail: Buffer[] = [];
  let tailBytes = 0;
  let cutBytes = 0;

  const keepInTail = (bytes: Buffer) => {
    tail.push(bytes);
    tailBytes += bytes.length;
    while (tail.length > 1 && tailBytes - tail[0].length >= tailRoom) {
      const dropped = tail.shift() as Buffer;
      tailBytes -= dropped.length;
      cutBytes += dropped.length;
    }
  };

  return {
    write(text) {
      if (!file || failure || text === "") return;
      const bytes = Buffer.from(text);
      const room = headRoom - headBytes;
      if (room >= bytes.length) {
        file.write(bytes);
        headBytes += bytes.length;
        return;
      }
      if (room > 0) {
        file.write(bytes.subarray(0, room));
        headBytes = headRoom;
      }
      keepInTail(bytes.subarray(Math.max(0, room)));
    },
    async close(footer) {
      if (!file) return;
      const last: (Buffer | string)[] = [];
      if (!failure && tailBytes > 0) {
        let kept = Buffer.concat(tail);
        if (kept.length > tailRoom) {
          cutBytes += kept.length - tailRoom;
          kept = kept.subarray(kept.length - tailRoom);
        }
        if (cutBytes > 0) {
          // Start the kept end at a line boundary, so that no line is printed half.
          const newline = kept.indexOf(10);
          if (newline !== -1 && newline < kept.length - 1) {
            cutBytes += newline + 1;
            kept = kept.subarray(newline + 1);
          }
          last.push(
            `\n[loopwright] ${cutBytes} bytes (${(cutBytes / 1024 / 1024).toFixed(1)} MiB) of output cut here: the log keeps its first and last ${mebibytes(tailRoom)}\n`,
          );
        }
        last.push(kept);
      }
      if (!failure && footer) last.push(footer);
      await file.close(last);
    },
    failure: () => failure,
  };
}

/**
 * A descriptor for writing the log at `path` (emptied first unless `append`). Opened without following a
 * symbolic link (ELOOP) and without blocking: a FIFO a maker planted there, with no reader, would hold the
 * open, and the controller, for good (here ENXIO). Then used only when it is a regular file with no other
 * link (a hard link to a user's file is refused, not emptied) or a character device (which no maker can
 * make: mknod needs privileges and a hard link cannot reach /dev; the tests' full disk is /dev/full).
 * Throws what refuses it.
 */
function openLogFile(path: string, append: boolean): number {
  const { O_WRONLY, O_CREAT, O_NOFOLLOW, O_NONBLOCK, O_APPEND } = constants;
  const descriptor = openSync(
    path,
    O_WRONLY | O_CREAT | O_NOFOLLOW | O_NONBLOCK | (append ? O_APPEND : 0),
    0o644,
  );
  try {
    const stats = fstatSync(descriptor);
    if (stats.isFile() && stats.nlink !== 1) throw new Error("a file with other links");
    if (!stats.isFile() && !stats.isCharacterDevice()) throw new Error("not a regular file");
    if (stats.isFile() && !append) ftruncateSync(descriptor, 0);
    return descriptor;
  } catch (error) {
    closeSync(descriptor);
    throw error;
  }
}

interface OrderedWriter {
  /** Queues `bytes` after everything written before; ignored once the file failed or was closed. */
  write(bytes: Buffer | string): void;
  /**
   * Writes `last` after everything queued, then closes the file; resolves once done (or once the first
   * failure stopped the writes). Only the first call counts.
   */
  close(last?: readonly (Buffer | string)[]): Promise<void>;
}

/** What `close` writes synchronously, at most, when no write is in flight. */
const lastWriteSyncBytes = 256 * 1024;

/**
 * Writes to an open file in order, one write in flight, whatever was queued meanwhile joined into the
 * next; the first failure is given to `onFailure` and drops the rest. Not a fs.WriteStream: the first
 * stream a process makes loads Node's file streams (2-5 ms of CPU), which a gate paid just before it
 * started. The last bytes (a log's footer) are written and the file closed synchronously when little is
 * left and nothing is in flight: microseconds, rather than two round trips of libuv's thread pool on
 * the way from a command's end to its outcome.
 */
function orderedWriter(descriptor: number, onFailure: (error: NodeJS.ErrnoException) => void): OrderedWriter {
  let queued: Buffer[] = [];
  let writing = false;
  let failed = false;
  let closed: Promise<void> | undefined;
  let drained: (() => void) | undefined;
  const writeNext = () => {
    if (failed || queued.length === 0) {
      writing = false;
      queued = [];
      drained?.();
      return;
    }
    const chunk = queued.length === 1 ? queued[0] : Buffer.concat(queued);
    queued = [];
    writeFrom(chunk, 0);
  };
  const writeFrom = (chunk: Buffer, offset: number) => {
    write(descriptor, chunk, offset, chunk.length - offset, null, (error, written) => {
      if (error) {
        failed = true;
        onFailure(error);
      } else if (offset + written < chunk.length) {
        return writeFrom(chunk, offset + written);
      }
      writeNext();
    });
  };
  const closeNow = (last: Buffer[]): Promise<void> => {
    try {
      for (const bytes of last) {
        for (let offset = 0; offset < bytes.length; )
          offset += writeSync(descriptor, bytes, offset, bytes.length - offset);
      }
    } catch (error) {
      failed = true;
      onFailure(error as NodeJS.ErrnoException);
    }
    try {
      closeSync(descriptor);
    } catch (error) {
      // Closed all the same (the descriptor is released), but what was written may not have reached
      // the file (NFS, a disk quota: close(2)).
      if (!failed) onFailure(error as NodeJS.ErrnoException);
      failed = true;
    }
    return Promise.resolve();
  };
  return {
    write(bytes) {
      if (failed || closed) return;
      queued.push(toBuffer(bytes));
      if (writing) return;
      writing = true;
      writeNext();
    },
    close(last = []) {
      // Once: a descriptor closed twice may by then be another file's.
      if (closed) return closed;
      const pieces = failed ? [] : last.map(toBuffer);
      const size = pieces.reduce((sum, bytes) => sum + bytes.length, 0);
      if (!writing && size <= lastWriteSyncBytes) {
        closed = closeNow(pieces);
        return closed;
      }
      closed = new Promise((resolve) => {
        drained = () =>
          close(descriptor, (error) => {
            if (error && !failed) onFailure(error);
            failed ||= error !== null;
            resolve();
          });
        queued.push(...pieces);
        if (writing) return;
        writing = true;
        writeNext();
      });
      return closed;
    },
  };
}

function toBuffer(bytes: Buffer | string): Buffer {
  return typeof bytes === "string" ? Buffer.from(bytes) : bytes;
}

function mebibytes(bytes: number): string {
  const value = bytes / 1024 / 1024;
  return `${Number.isInteger(value) ? value : value.toFixed(1)} MiB`;
}
