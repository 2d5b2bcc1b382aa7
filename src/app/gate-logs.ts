/**
 * Gate logs: which logs an iteration has (0: the gates' run on the base commit), and pages of one as
 * text, for logs of any size. Both read through `readGateLogBytes` (see gate-log-reader.ts): only a
 * regular file inside the loop's folder, never through a link.
 */

import type { Redact } from "../core/redact.ts";
import { FieldError, UsageError } from "../errors.ts";
import { type AppContext, readLoop } from "./app-context.ts";
import { readGateLogBytes, readLogFile } from "./gate-log-reader.ts";
import { selectGateRuns } from "./gate-log-runs.ts";
import { parseRequest } from "./parse-request.ts";
import {
  type GateLogList,
  type GateLogRange,
  type GateLogReadRequest,
  type GateLogsRequest,
  gateLogReadRequestSchema,
  gateLogsRequestSchema,
} from "./schemas/file-schemas.ts";

/**
 * The gate logs of `iteration` (default: the last iteration that ran its gates), only `gate`'s when given.
 * Throws `LoopNotFoundError`, `FieldError` on `iteration` or `gate` for one the loop does not have, or
 * `UsageError` saying why an iteration has no logs (cancelled before its gates ran, ...).
 */
export async function listGateLogs(
  context: AppContext,
  reference: string,
  request: GateLogsRequest = {},
): Promise<GateLogList> {
  const { iteration, gate } = parseRequest(gateLogsRequestSchema, request);
  const read = await readLoop(context, reference);
  const selected = selectGateRuns(read, iteration, gate);
  const logs = await Promise.all(
    selected.results.map(async (result) => {
      const probe = await readLogFile(context.home, read.loop.id, result.logPath, { offset: 0, length: 0 });
      return {
        gate: result.id,
        phase: result.phase,
        kind: result.kind,
        passed: result.passed,
        exitCode: result.exitCode,
        logPath: result.logPath,
        sizeBytes: probe.ok ? probe.totalBytes : null,
        missing: !probe.ok && probe.code === "ENOENT",
        problem: probe.ok ? null : probe.problem,
      };
    }),
  );
  return { loopId: read.loop.id, iteration: selected.number, logs };
}

/**
 * Bytes `offset` to `offset + length` (default 1 MiB, at most 16 MiB) of one gate log as text: `phase`
 * picks the run (default: the gate's last run of the iteration). With `redact` knowing secrets, the log
 * is redacted whole before the range is cut (offsets and sizes are the redacted log's). Throws
 * `FieldError` on `offset` past the end of the log, and `UsageError` for a log that is missing, not a
 * regular file (a link, a FIFO), or too large to redact whole.
 */
export async function readGateLog(
  context: AppContext,
  reference: string,
  request: GateLogReadRequest,
  options: { redact?: Redact } = {},
): Promise<GateLogRange> {
  const { iteration, gate, phase, offset, length } = parseRequest(gateLogReadRequestSchema, request);
  const range = { start: offset, end: offset + length };
  const read = await readGateLogBytes(context, reference, { iteration, gate, phase }, { range, ...options });
  const { run } = read;
  if (read.kind === "refused")
    throw new UsageError(`log of gate ${gate} not readable: ${run.result.logPath}: ${read.problem}`);
  if (offset > read.totalBytes)
    throw new FieldError("offset", `past the end: the log has ${read.totalBytes} bytes`);
  const found = read.kind === "read" ? read.bytes : Buffer.alloc(0);
  const bytes = offset + found.length < read.totalBytes ? wholeCharacters(found) : found;
  return {
    loopId: run.loopId,
    iteration: run.iteration,
    gate: run.result.id,
    phase: run.result.phase,
    logPath: run.result.logPath,
    offset,
    length: bytes.length,
    totalBytes: read.totalBytes,
    nextOffset: offset + bytes.length,
    complete: offset + bytes.length >= read.totalBytes,
    text: bytes.toString("utf8"),
  };
}

/**
 * `bytes` without a UTF-8 character cut at its end (a following read starts where this one stops, so
 * pages join exactly). Left whole when cutting would leave nothing.
 */
function wholeCharacters(bytes: Buffer): Buffer {
  for (let back = 1; back <= Math.min(4, bytes.length); back++) {
    const byte = bytes[bytes.length - back];
    if ((byte & 0xc0) === 0x80) continue; // a continuation byte: look further back
    const needed = byte >= 0xf0 ? 4 : byte >= 0xe0 ? 3 : byte >= 0xc0 ? 2 : 1;
    const start = bytes.length - back;
    return needed > back && start > 0 ? bytes.subarray(0, start) : bytes;
  }
  return bytes;
}
