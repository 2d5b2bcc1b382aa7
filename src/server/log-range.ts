/**
 * Ranged reads of gate logs (a log may be 16 MiB or more): `Range: bytes=a-b` or `?offset=&length=`
 * answer 206 with the bytes asked for, a range past the end 416, no range 200 with the whole log. Only
 * a regular file inside the loop's own folder is read, never through a symbolic link (a maker could
 * replace its log by a link to a secret file or to /dev/zero).
 */
import { constants } from "node:fs";
import { open, realpath } from "node:fs/promises";
import { dirname, sep } from "node:path";
import type { Redact } from "../core/redact.ts";
import { FieldError } from "../errors.ts";

/** Largest log answered whole, or redacted whole before a range is cut from it. */
export const maximumLogBytes = 64 * 1024 * 1024;

/** A byte range asked for: `start` inclusive; `end` exclusive, or undefined for "to the end". */
export type ByteRange = { start: number; end?: number } | { suffix: number };

/**
 * The range of a request: the Range header (one `bytes=` range) or the offset and length of the query.
 * Throws `FieldError` for a Range header it cannot read.
 */
export function requestedRange(
  header: string | undefined,
  query: { offset?: number; length?: number },
): ByteRange | undefined {
  if (header !== undefined) {
    const match = /^\s*bytes\s*=\s*(\d*)\s*-\s*(\d*)\s*$/i.exec(header);
    if (!match || (match[1] === "" && match[2] === ""))
      throw new FieldError("range", `expected one bytes=START-END range, got '${header}'`);
    if (match[1] === "") return { suffix: Number(match[2]) };
    const start = Number(match[1]);
    const end = match[2] === "" ? undefined : Number(match[2]) + 1;
    if (end !== undefined && end <= start)
      throw new FieldError("range", `the end is before the start in '${header}'`);
    return { start, end };
  }
  if (query.offset === undefined && query.length === undefined) return undefined;
  const start = query.offset ?? 0;
  return { start, end: query.length === undefined ? undefined : start + query.length };
}

export type LogRead =
  | { kind: "whole"; bytes: Buffer; size: number }
  | { kind: "partial"; bytes: Buffer; start: number; end: number; size: number }
  | { kind: "unsatisfiable"; size: number }
  | { kind: "refused"; reason: string; status: 403 | 404 | 413 };

/**
 * Reads `path` (which must lie inside `folder`, a loop's own folder) whole or in part. With secrets to
 * hide, the whole log is redacted first and the range cut from the redacted text, so a secret straddling
 * the range's edge never leaks half of itself; sizes and offsets are then those of the redacted log.
 */
export async function readLog(
  path: string,
  folder: string,
  range: ByteRange | undefined,
  redact: Redact,
): Promise<LogRead> {
  let realFolder: string;
  let realParent: string;
  try {
    realFolder = await realpath(folder);
    realParent = await realpath(dirname(path));
  } catch {
    return { kind: "refused", status: 404, reason: `log missing: ${path}` };
  }
  if (realParent !== realFolder && !realParent.startsWith(realFolder + sep))
    return { kind: "refused", status: 403, reason: `the log ${path} is outside the loop's folder` };
  let handle: Awaited<ReturnType<typeof open>>;
  try {
    handle = await open(path, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === "ENOENT") return { kind: "refused", status: 404, reason: `log missing: ${path}` };
    if (code === "ELOOP")
      return { kind: "refused", status: 403, reason: `the log ${path} is a symbolic link: not read` };
    return { kind: "refused", status: 403, reason: `log not readable: ${path} (${code})` };
  }
  try {
    const stats = await handle.stat();
    if (!stats.isFile())
      return { kind: "refused", status: 403, reason: `the log ${path} is not a regular file: not read` };
    const redacting = (redact.secrets ?? []).length > 0;
    if (range === undefined || redacting) {
      if (stats.size > maximumLogBytes)
        return {
          kind: "refused",
          status: 413,
          reason: `the log is ${stats.size} bytes, over ${maximumLogBytes}: ask for a range`,
        };
      const raw = await readAt(handle, 0, stats.size);
      const whole = redacting ? Buffer.from(redact(raw.toString("utf8"))) : raw;
      return range === undefined ? { kind: "whole", bytes: whole, size: whole.length } : cut(whole, range);
    }
    const bounds = resolve(range, stats.size);
    if (!bounds) return { kind: "unsatisfiable", size: stats.size };
    // A range is answered in part when it is larger than the cap: the client asks for the rest.
    const bytes = await readAt(handle, bounds.start, Math.min(bounds.end - bounds.start, maximumLogBytes));
    return {
      kind: "partial",
      bytes,
      start: bounds.start,
      end: bounds.start + bytes.length,
      size: stats.size,
    };
  } finally {
    await handle.close().catch(() => {});
  }
}

function cut(whole: Buffer, range: ByteRange): LogRead {
  const bounds = resolve(range, whole.length);
  if (!bounds) return { kind: "unsatisfiable", size: whole.length };
  return {
    kind: "partial",
    bytes: whole.subarray(bounds.start, bounds.end),
    start: bounds.start,
    end: bounds.end,
    size: whole.length,
  };
}

/** The byte bounds of `range` in a file of `size` bytes, or undefined when it starts past the end. */
function resolve(range: ByteRange, size: number): { start: number; end: number } | undefined {
  if ("suffix" in range) {
    if (range.suffix === 0 || size === 0) return undefined;
    return { start: Math.max(0, size - range.suffix), end: size };
  }
  if (range.start >= size) return undefined;
  return { start: range.start, end: Math.min(range.end ?? size, size) };
}

async function readAt(
  handle: Awaited<ReturnType<typeof open>>,
  start: number,
  length: number,
): Promise<Buffer> {
  const buffer = Buffer.alloc(length);
  let filled = 0;
  while (filled < length) {
    const { bytesRead } = await handle.read(buffer, filled, length - filled, start + filled);
    if (bytesRead === 0) break;
    filled += bytesRead;
  }
  return buffer.subarray(0, filled);
}
