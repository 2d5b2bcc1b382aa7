/**
 * The HTTP side of a gate log (the reading itself is the application layer's `readGateLogBytes`): the
 * Range header or `?offset=&length=` become a byte range, and a read becomes 200 with the whole log, 206
 * with Content-Range, 416 for a range past the end, or the refusal's status (404 missing, 413 too large,
 * 403 a link, not a regular file, outside the loop's folder).
 */
import type { Context } from "hono";
import type { ByteRange, GateLogBytes } from "../app/gate-log-reader.ts";
import { FieldError } from "../errors.ts";

/**
 * The range of a request: the Range header (one `bytes=` range) or the offset and length of the query;
 * undefined for the whole log. Throws `FieldError` on `range` for a Range header it cannot read.
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

/** A log read as an answer: 200 whole, 206 with Content-Range, 416 with the size, or the refusal. */
export function answerLog(context: Context, read: GateLogBytes): Response {
  const type = { "content-type": "text/plain; charset=utf-8", "accept-ranges": "bytes" };
  switch (read.kind) {
    case "read":
      if (read.whole) return context.body(new Uint8Array(read.bytes), 200, type);
      return context.body(new Uint8Array(read.bytes), 206, {
        ...type,
        "content-range": `bytes ${read.start}-${read.end - 1}/${read.totalBytes}`,
      });
    case "past-end":
      return context.json(
        { error: `the range starts past the end of the log (${read.totalBytes} bytes)`, field: "range" },
        416,
        { "content-range": `bytes */${read.totalBytes}` },
      );
    case "refused": {
      const status = read.code === "ENOENT" ? 404 : read.code === "EFBIG" ? 413 : 403;
      return context.json({ error: `log not readable: ${read.run.result.logPath}: ${read.problem}` }, status);
    }
  }
}
