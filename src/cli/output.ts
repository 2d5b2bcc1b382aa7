/**
 * The read-only commands' output, written to file descriptors 1 and 2 with `fs.writeSync` rather than
 * through `process.stdout` and `process.stderr`: the first access to either builds a stream (tty, or net
 * for a pipe) and loads Node's stream modules, on every `ls`, `show` and `validate` (one line into a
 * pipe: 130 ms of CPU through process.stdout against 114 ms with fs.writeSync, `sh -c 'node -e … | cat'`
 * under perf stat -r 30 on a loaded 2-core machine, where `node -e 0` took ~96 ms).
 *
 * A reader that goes away early (`loopwright ls | head -1`, or `2>&1 | head` for stderr) closes the
 * pipe under us. That is the reader's choice, not an error: further output is dropped and the command
 * finishes as it would have, with its own exit code. A running loop is not killed by it (its timeline
 * keeps everything; `show` reads it back).
 *
 * The direct writers send the same bytes in the same order as the streams would. A reader that closed
 * the pipe (EPIPE) drops the rest quietly. Anything else a direct write cannot do (EAGAIN on a
 * pipe another process made non-blocking, a descriptor that is not open) hands the rest, and every later
 * write, to the stream, which waits for a full pipe and reports as it always did.
 */
import { writeSync } from "../files/node-fs.ts";

/** Writes `text` in full, or drops it once the reader is gone. */
export type Writer = (text: string) => void;

/** Writes to standard output. */
export const writeOut: Writer = directWriter(1, () => process.stdout);

/** Writes to standard error. */
export const writeErr: Writer = directWriter(2, () => process.stderr);

/**
 * A writer to `fd` that writes synchronously until a write fails: EPIPE drops this and every later
 * text; any other error passes the unwritten rest, and every later text, to `stream()`. `write` is
 * fs.writeSync's shape (bytes written, may be fewer than asked).
 */
export function directWriter(
  fd: number,
  stream: () => NodeJS.WriteStream,
  write: (fd: number, buffer: Uint8Array, offset: number) => number = writeSync,
): Writer {
  let mode: "direct" | "stream" | "dropped" = "direct";
  let fallback: NodeJS.WriteStream | undefined;
  const toStream = (data: string | Uint8Array) => {
    if (!fallback) {
      fallback = stream();
      dropOutputWhenPipeCloses(fallback);
    }
    fallback.write(data);
  };
  return (text) => {
    if (mode === "dropped" || text === "") return;
    if (mode === "stream") return toStream(text);
    const bytes = Buffer.from(text, "utf8");
    let offset = 0;
    try {
      while (offset < bytes.length) offset += write(fd, bytes, offset);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === "EPIPE") {
        mode = "dropped";
        return;
      }
      mode = "stream";
      toStream(bytes.subarray(offset));
    }
  };
}

/** Makes `stream` drop output quietly once its reader has closed the pipe (EPIPE); rethrows anything else. */
export function dropOutputWhenPipeCloses(stream: NodeJS.WriteStream = process.stdout): void {
  stream.on("error", (error: NodeJS.ErrnoException) => {
    if (error.code !== "EPIPE" && error.code !== "ERR_STREAM_DESTROYED") throw error;
    stream.write = (() => true) as typeof stream.write;
  });
}
