/**
 * Reading a range of lines of a large log without loading it whole: the file is streamed, lines
 * `from` .. `from + count - 1` (1-based) are kept, and the rest are only counted. Only a regular file is
 * read, never through a symbolic link.
 */
import { constants } from "node:fs";
import { open } from "node:fs/promises";
import { createInterface } from "node:readline";

export type LogLines =
  | { ok: true; lines: string[]; from: number; totalLines: number; bytes: number }
  | { ok: false; problem: string };

/** Longest line kept whole; a longer one is cut, saying so (a minified bundle in a log is one huge line). */
const longestLine = 4000;

export async function readLogLines(path: string, from: number, count: number): Promise<LogLines> {
  let handle: Awaited<ReturnType<typeof open>>;
  try {
    handle = await open(path, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    return { ok: false, problem: code === "ENOENT" ? "the log is missing" : `cannot read the log (${code})` };
  }
  try {
    const stats = await handle.stat();
    if (!stats.isFile()) return { ok: false, problem: "the log is not a regular file" };
    const lines: string[] = [];
    let number = 0;
    const reader = createInterface({
      input: handle.createReadStream({ autoClose: false }),
      crlfDelay: Infinity,
    });
    for await (const line of reader) {
      number += 1;
      if (number >= from && number < from + count) {
        lines.push(
          line.length > longestLine
            ? `${line.slice(0, longestLine)} … (${line.length - longestLine} more characters cut)`
            : line,
        );
      }
    }
    return { ok: true, lines, from, totalLines: number, bytes: stats.size };
  } finally {
    await handle.close();
  }
}
