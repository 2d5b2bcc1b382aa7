/**
 * The one reader of gate logs, for the CLI's `logs`, the API's ranged reads and the dashboard's log page:
 * it locates a run's log from the timeline (never from the request), reads it only as a regular file
 * inside the loop's own folder, never through a link (a maker could replace its log by a link to a
 * secret file or to /dev/zero, or its log folder by a link leading outside), and cuts the range asked for.
 */
import { realpath } from "node:fs/promises";
import { dirname, sep } from "node:path";
import type { GateResult } from "../core/events.ts";
import type { Redact } from "../core/redact.ts";
import { formatBytes, type RegularFileRange, readRegularFileRange } from "../files/read-regular-file.ts";
import { homeLayout } from "../paths.ts";
import { type AppContext, readLoop } from "./app-context.ts";
import { selectGateRun } from "./gate-log-runs.ts";
import { parseRequest } from "./parse-request.ts";
import { type GateLogRunRequest, gateLogRunRequestSchema } from "./schemas/file-schemas.ts";

/** Largest log read whole: answered whole, or redacted whole before a range is cut from it. */
export const maximumWholeLogBytes = 64 * 1024 * 1024;

/** Bytes asked for: from `start` to `end` (exclusive; undefined: to the end), or the last `suffix` bytes. */
export type ByteRange = { start: number; end?: number } | { suffix: number };

/** The run a log belongs to: the loop, the iteration (0: the base commit) and the gate's result. */
export interface GateLogRun {
  loopId: string;
  iteration: number;
  result: GateResult;
}

/**
 * A read of a gate log. `read`: bytes `start` to `end` of a log of `totalBytes` (a range longer than
 * the whole-read cap is answered in part: `end` says where it stopped); `whole` when no range was asked.
 * `past-end`: the range starts at or past the end (or is an empty suffix). `refused`: the log cannot be
 * read, with one phrase and a code (`ENOENT`, `ELOOP`, `ENOTREG`, `EOUTSIDE`, `EFBIG`...).
 * With a redactor, sizes and offsets are those of the redacted log.
 */
export type GateLogBytes =
  | {
      kind: "read";
      run: GateLogRun;
      bytes: Buffer;
      start: number;
      end: number;
      totalBytes: number;
      /** The log's modification time when read: with `totalBytes`, names the version read. */
      modifiedMs: number;
      whole: boolean;
    }
  | { kind: "past-end"; run: GateLogRun; totalBytes: number }
  | { kind: "refused"; run: GateLogRun; problem: string; code: string };

export interface GateLogReadOptions {
  /** Default: the whole log (refused as `EFBIG` over 64 MiB). */
  range?: ByteRange;
  /**
   * Secrets to hide: when it knows any, the whole log (at most 64 MiB) is redacted first and the range is
   * cut from the redacted text, so that a secret straddling the range's edge never shows half of itself
   * and two adjacent ranges never join into it.
   */
  redact?: Redact;
}

/**
 * Reads the log of one gate run (`phase` default: the gate's last run of the iteration), whole or a
 * range. Throws `LoopNotFoundError`, and `FieldError` on `iteration`, `gate` or `phase` for a run the loop
 * does not have; a log that cannot be read is a `refused` answer, not an error.
 */
export async function readGateLogBytes(
  context: AppContext,
  reference: string,
  request: GateLogRunRequest,
  options: GateLogReadOptions = {},
): Promise<GateLogBytes> {
  const { iteration, gate, phase } = parseRequest(gateLogRunRequestSchema, request);
  const read = await readLoop(context, reference);
  const selected = selectGateRun(read, iteration, gate, phase);
  const run = { loopId: read.loop.id, iteration: selected.number, result: selected.result };
  const { range, redact } = options;
  const redacting = (redact?.secrets ?? []).length > 0;
  if (range === undefined || redacting) {
    const file = await readLogFile(context.home, run.loopId, run.result.logPath, {
      offset: 0,
      length: maximumWholeLogBytes,
      maximumTotalBytes: maximumWholeLogBytes,
    });
    if (!file.ok) return { kind: "refused", run, ...refusal(file, redacting) };
    const bytes = redact && redacting ? Buffer.from(redact(file.bytes.toString("utf8"))) : file.bytes;
    const bounds = range === undefined ? { start: 0, end: bytes.length } : resolve(range, bytes.length);
    if (!bounds) return { kind: "past-end", run, totalBytes: bytes.length };
    return {
      kind: "read",
      run,
      bytes: bytes.subarray(bounds.start, bounds.end),
      ...bounds,
      totalBytes: bytes.length,
      modifiedMs: file.modifiedMs,
      whole: range === undefined,
    };
  }
  const part =
    "suffix" in range
      ? { lastBytes: Math.min(range.suffix, maximumWholeLogBytes) }
      : {
          offset: range.start,
          length: Math.min((range.end ?? Number.POSITIVE_INFINITY) - range.start, maximumWholeLogBytes),
        };
  const file = await readLogFile(context.home, run.loopId, run.result.logPath, part);
  if (!file.ok) return { kind: "refused", run, ...refusal(file, false) };
  if (!resolve(range, file.totalBytes)) return { kind: "past-end", run, totalBytes: file.totalBytes };
  return {
    kind: "read",
    run,
    bytes: file.bytes,
    start: file.offset,
    end: file.offset + file.bytes.length,
    totalBytes: file.totalBytes,
    modifiedMs: file.modifiedMs,
    whole: false,
  };
}

/**
 * Part of a log that lies in the loop's own folder, read as a regular file without following a link,
 * its last component or any folder above it (a folder swapped for a link leads outside and is refused).
 */
export async function readLogFile(
  home: string,
  loopId: string,
  path: string,
  part: Parameters<typeof readRegularFileRange>[1],
): Promise<RegularFileRange> {
  const folder = homeLayout(home).loopDirectory(loopId);
  const [realFolder, realParent] = await Promise.all([
    realpath(folder).catch(() => undefined),
    realpath(dirname(path)).catch(() => undefined),
  ]);
  if (!realFolder || !realParent) return { ok: false, problem: "no such file", code: "ENOENT" };
  if (realParent !== realFolder && !realParent.startsWith(realFolder + sep))
    return { ok: false, problem: "not inside the loop's folder", code: "EOUTSIDE" };
  return readRegularFileRange(path, { ...part, noFollow: true });
}

/** A refusal as `readGateLogBytes` answers it; a log too large to read whole says what to do instead. */
function refusal(
  file: { problem: string; code?: string },
  redacting: boolean,
): { problem: string; code: string } {
  if (file.code !== "EFBIG") return { problem: file.problem, code: file.code ?? "EIO" };
  const limit = formatBytes(maximumWholeLogBytes);
  return {
    code: "EFBIG",
    problem: redacting
      ? `${file.problem}: the service has secrets to hide and redacts a log whole, up to ${limit}`
      : `${file.problem}: ask for a range`,
  };
}

/** The byte bounds of `range` in a log of `size` bytes, or undefined when it starts at or past the end. */
function resolve(range: ByteRange, size: number): { start: number; end: number } | undefined {
  if ("suffix" in range) {
    if (range.suffix === 0 || size === 0) return undefined;
    return { start: Math.max(0, size - range.suffix), end: size };
  }
  if (range.start >= size) return undefined;
  return { start: range.start, end: Math.min(range.end ?? size, size) };
}
