/**
 * A page of lines of a gate log, read through the application layer's `readGateLogBytes` (the same
 * reader as the CLI's `logs` and the API: a regular file in the loop's folder, never through a link).
 * Lines are numbered as the failure digest numbers them (one per `\n`), so its `#L120` links land.
 *
 * A line index makes a page one ranged read: the byte offset where every page of lines starts (one
 * number per `logPageLines` lines, so at most 32k numbers for a 64 MiB log of empty lines), found by one
 * scan of the log in 1 MiB ranges and kept for the log's version (path, size, modification time) in a
 * cache of at most 32 logs, the least recently used dropped first.
 */
import type { AppContext } from "../../app/app-context.ts";
import { type GateLogRun, readGateLogBytes } from "../../app/gate-log-reader.ts";
import type { GateLogRunRequest } from "../../app/schemas/file-schemas.ts";
import type { Redact } from "../../core/redact.ts";

export type LogLines =
  | { ok: true; run: GateLogRun; lines: string[]; from: number; totalLines: number; bytes: number }
  | { ok: false; run: GateLogRun; problem: string };

/** Where every page of a log's lines starts, for one version of it. */
interface LineIndex {
  /** Byte offset of lines 1, 1 + pageLines, 1 + 2 × pageLines, ... */
  pageStarts: number[];
  totalLines: number;
}

/** The line indexes of the logs read lately: a bounded LRU (a `Map` keeps insertion order). */
export interface LineIndexCache {
  readonly indexes: Map<string, LineIndex>;
  readonly limit: number;
}

export function createLineIndexCache(limit = 32): LineIndexCache {
  return { indexes: new Map(), limit };
}

/** Longest line kept whole; a longer one is cut, saying so (a minified bundle in a log is one huge line). */
const longestLine = 4000;
/** Bytes read per range while indexing. */
const scanChunkBytes = 1024 * 1024;

/**
 * Lines `from` .. `from + count - 1` (1-based) of one gate run's log. Each line is redacted before it is
 * cut (a secret straddling the cut never shows half of itself); a page starts and ends at line ends, and
 * the redactor also knows each line of a multi-line secret, so no secret is split between two pages.
 * Throws as `readGateLogBytes` does for a run the loop does not have.
 */
export async function readLogLines(
  context: AppContext,
  loopId: string,
  request: GateLogRunRequest,
  page: { from: number; count: number },
  options: { cache: LineIndexCache; redact: Redact },
): Promise<LogLines> {
  const { from, count } = page;
  const read: ReadRange = (start, end) =>
    readGateLogBytes(context, loopId, request, { range: { start, end: end ?? start + scanChunkBytes } });
  // A log rewritten while it is indexed or read is read again, once.
  for (let attempt = 0; ; attempt++) {
    const head = await read(0);
    const { run } = head;
    if (head.kind === "refused") {
      const problem =
        head.code === "ENOENT" ? "the log is missing" : `the log cannot be read: ${head.problem}`;
      return { ok: false, run, problem };
    }
    if (head.kind === "past-end") return { ok: true, run, lines: [], from, totalLines: 0, bytes: 0 };
    const version = { path: run.result.logPath, totalBytes: head.totalBytes, modifiedMs: head.modifiedMs };
    const index = await lineIndex(options.cache, version, head.bytes, count, read);
    const lines = index && (await readLines(index, from, count, read, version));
    if (!index || !lines) {
      if (attempt === 0) continue;
      return { ok: false, run, problem: "the log changed while it was read: reload the page" };
    }
    return {
      ok: true,
      run,
      lines: lines.map((line) => shown(line, options.redact)),
      from,
      totalLines: index.totalLines,
      bytes: head.totalBytes,
    };
  }
}

/** One version of a log: what a line index is valid for. */
interface LogVersion {
  path: string;
  totalBytes: number;
  modifiedMs: number;
}

type ReadRange = (start: number, end?: number) => ReturnType<typeof readGateLogBytes>;

/** The cached index of this version of the log, or one built by scanning the log; undefined when the log changed meanwhile. */
async function lineIndex(
  cache: LineIndexCache,
  version: LogVersion,
  head: Buffer,
  pageLines: number,
  read: ReadRange,
): Promise<LineIndex | undefined> {
  const { totalBytes, modifiedMs } = version;
  const key = [version.path, totalBytes, modifiedMs, pageLines].join("\0");
  const cached = cache.indexes.get(key);
  if (cached) {
    cache.indexes.delete(key);
    cache.indexes.set(key, cached);
    return cached;
  }
  const pageStarts = [0];
  let newlines = 0;
  let lastByte = 0;
  let chunk = head;
  for (let offset = 0; ; ) {
    for (let at = chunk.indexOf(10); at !== -1; at = chunk.indexOf(10, at + 1)) {
      newlines += 1;
      const next = offset + at + 1;
      if (newlines % pageLines === 0 && next < totalBytes) pageStarts.push(next);
    }
    if (chunk.length > 0) lastByte = chunk[chunk.length - 1];
    offset += chunk.length;
    if (offset >= totalBytes) break;
    const more = await read(offset);
    if (more.kind !== "read" || more.totalBytes !== totalBytes || more.modifiedMs !== modifiedMs)
      return undefined;
    chunk = more.bytes;
  }
  const index = { pageStarts, totalLines: newlines + (lastByte === 10 ? 0 : 1) };
  cache.indexes.set(key, index);
  if (cache.indexes.size > cache.limit) cache.indexes.delete(cache.indexes.keys().next().value as string);
  return index;
}

/**
 * Lines `from` .. `from + count - 1` as the index finds them: one ranged read of at most two pages.
 * Undefined when the log is no longer the version indexed.
 */
async function readLines(
  index: LineIndex,
  from: number,
  count: number,
  read: ReadRange,
  version: LogVersion,
): Promise<string[] | undefined> {
  if (from > index.totalLines) return [];
  const page = Math.floor((from - 1) / count);
  const start = index.pageStarts[page];
  const end = index.pageStarts[page + 2] ?? version.totalBytes;
  const part = await read(start, end);
  if (
    part.kind !== "read" ||
    part.totalBytes !== version.totalBytes ||
    part.modifiedMs !== version.modifiedMs
  )
    return undefined;
  const lines = part.bytes.toString("utf8").split("\n");
  if (lines.at(-1) === "") lines.pop();
  const skip = from - 1 - page * count;
  return lines.slice(skip, skip + count);
}

/** A line as the page shows it: what a terminal shows of it (a `\r` redraws), redacted, then cut when long. */
function shown(raw: string, redact: Redact): string {
  const drawn = raw.includes("\r")
    ? (raw
        .split("\r")
        .filter((part) => part.length > 0)
        .at(-1) ?? "")
    : raw;
  const line = redact(drawn);
  return line.length > longestLine
    ? `${line.slice(0, longestLine)} … (${line.length - longestLine} more characters cut)`
    : line;
}
