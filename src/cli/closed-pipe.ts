/**
 * A reader that goes away early (`loopwright ls | head -1`, or `2>&1 | head` for stderr) closes the
 * pipe under us. That is the reader's choice, not an error: further output is dropped and the command
 * finishes as it would have, with its own exit code. A running loop is not killed by it (its timeline
 * keeps everything; `show` reads it back).
 */

/** Makes `stream` drop output quietly once its reader has closed the pipe (EPIPE); rethrows anything else. */
export function dropOutputWhenPipeCloses(stream: NodeJS.WriteStream = process.stdout): void {
  stream.on("error", (error: NodeJS.ErrnoException) => {
    if (error.code !== "EPIPE" && error.code !== "ERR_STREAM_DESTROYED") throw error;
    stream.write = (() => true) as typeof stream.write;
  });
}
