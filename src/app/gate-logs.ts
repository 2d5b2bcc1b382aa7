/**
 * Gate logs: which logs an iteration has (0: the gates' run on the base commit), and byte ranges of one,
 * for logs of any size. A log is read only as a regular file, never through a link: a maker that replaced
 * a log by a link to /dev/zero or to a secret gets a refusal, not the target.
 */

import { realpath } from "node:fs/promises";
import { dirname, sep } from "node:path";
import type { GateResult } from "../core/events.ts";
import { FieldError, UsageError } from "../errors.ts";
import { type RegularFileRange, readRegularFileRange } from "../files/read-regular-file.ts";
import { allGateResults, type IterationState } from "../loop/state.ts";
import { homeLayout } from "../paths.ts";
import { type AppContext, type ReadLoop, readLoop } from "./app-context.ts";
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
  const selected = selectResults(read, iteration, gate);
  const logs = await Promise.all(
    selected.results.map(async (result) => {
      const probe = await readLog(context, read.loop.id, result.logPath, 0, 0);
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
 * Bytes `offset` to `offset + length` (default 1 MiB, at most 16 MiB) of one gate log: `phase` picks the
 * run (default: the gate's last run of the iteration). Throws `FieldError` on `offset` past the end of the
 * log, and `UsageError` for a log that is missing or not a regular file (a link, a FIFO).
 */
export async function readGateLog(
  context: AppContext,
  reference: string,
  request: GateLogReadRequest,
): Promise<GateLogRange> {
  const { iteration, gate, phase, offset, length } = parseRequest(gateLogReadRequestSchema, request);
  const read = await readLoop(context, reference);
  const selected = selectResults(read, iteration, gate);
  const result = phase
    ? selected.results.find((candidate) => candidate.phase === phase)
    : selected.results.at(-1);
  if (!result) {
    const problem = `iteration ${selected.number} has no ${phase} run of gate '${gate}'`;
    throw new FieldError("phase", problem, problem);
  }
  const range = await readLog(context, read.loop.id, result.logPath, offset, length);
  if (!range.ok)
    throw new UsageError(`log of gate ${gate} not readable: ${result.logPath}: ${range.problem}`);
  if (offset > range.totalBytes) {
    throw new FieldError("offset", `past the end: the log has ${range.totalBytes} bytes`);
  }
  const end = offset + range.bytes.length;
  const bytes = end < range.totalBytes ? wholeCharacters(range.bytes) : range.bytes;
  return {
    loopId: read.loop.id,
    iteration: selected.number,
    gate: result.id,
    phase: result.phase,
    logPath: result.logPath,
    offset,
    length: bytes.length,
    totalBytes: range.totalBytes,
    nextOffset: offset + bytes.length,
    complete: offset + bytes.length >= range.totalBytes,
    text: bytes.toString("utf8"),
  };
}

/**
 * A range of a log that lies in the loop's own folder, read as a regular file without following a link,
 * its last component or any folder above it (a folder swapped for a link leads outside and is refused).
 */
async function readLog(
  context: AppContext,
  loopId: string,
  path: string,
  offset: number,
  length: number,
): Promise<RegularFileRange> {
  const folder = homeLayout(context.home).loopDirectory(loopId);
  const [realFolder, realParent] = await Promise.all([
    realpath(folder).catch(() => undefined),
    realpath(dirname(path)).catch(() => undefined),
  ]);
  if (!realFolder || !realParent) return { ok: false, problem: "no such file", code: "ENOENT" };
  if (realParent !== realFolder && !realParent.startsWith(realFolder + sep))
    return { ok: false, problem: "not inside the loop's folder", code: "EOUTSIDE" };
  return readRegularFileRange(path, { offset, length, noFollow: true });
}

/** The results of one iteration's gates (0: the base commit), as `logs` selects them; errors say why none. */
function selectResults(
  { loop, state }: ReadLoop,
  wanted: number | undefined,
  gate: string | undefined,
): { number: number; results: GateResult[] } {
  const pointer = `(loopwright logs ${loop.name} --iteration 0: the base commit's)`;
  let number: number;
  let results: GateResult[];
  if (wanted === 0) {
    number = 0;
    results = Object.values(state.baseline);
    if (results.length === 0)
      throw new UsageError(`loop ${loop.name} has not run its gates on the base commit yet`);
  } else {
    const graded = state.iterations.filter((iteration) => allGateResults(iteration).length > 0);
    const iteration =
      wanted === undefined
        ? graded.at(-1)
        : state.iterations.find((candidate) => candidate.number === wanted);
    if (!iteration) {
      if (wanted !== undefined) {
        const message = `loop ${loop.name} has no iteration ${wanted}`;
        throw new FieldError("iteration", message, message);
      }
      const last = state.iterations.at(-1);
      if (last) throw new UsageError(`${describeWithoutLogs(last)} ${pointer}`);
      throw new UsageError(
        `loop ${loop.name} has no gate logs of an iteration yet${Object.keys(state.baseline).length > 0 ? ` ${pointer}` : ""}`,
      );
    }
    results = allGateResults(iteration);
    if (results.length === 0) throw new UsageError(`${describeWithoutLogs(iteration)} ${pointer}`);
    number = iteration.number;
  }
  const selected = gate ? results.filter((result) => result.id === gate) : results;
  if (selected.length === 0) {
    const message = `iteration ${number} has no log for gate '${gate}'`;
    throw new FieldError("gate", message, message);
  }
  return { number, results: selected };
}

/** Why an iteration has no gate logs, from what happened to it: `iteration 3 was cancelled before its gates ran: ...`. */
function describeWithoutLogs(iteration: IterationState): string {
  const name = `iteration ${iteration.number}`;
  const outcome = iteration.ended?.outcome;
  if (!outcome) return `${name} is running and has not finished a gate yet: it has no gate logs`;
  if (outcome === "cancelled") return `${name} was cancelled before its gates ran: it has no gate logs`;
  const why = iteration.ended?.summary ? ` (${iteration.ended.summary})` : "";
  return `${name} ended ${outcome} before its gates ran${why}: it has no gate logs`;
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
