/** A complete HTTP answer, built before anything is written so that rendering stays pure. */
export interface HttpAnswer {
  status: number;
  headers: Record<string, string>;
  body: string;
}

/** A JSON answer with `status` (default 200). */
export function jsonAnswer(value: unknown, status = 200, headers: Record<string, string> = {}): HttpAnswer {
  return { status, headers: { "content-type": "application/json", ...headers }, body: JSON.stringify(value) };
}

/** A server-sent events answer made of already rendered frames. */
export function sseAnswer(frames: string[]): HttpAnswer {
  return {
    status: 200,
    headers: { "content-type": "text/event-stream; charset=utf-8", "cache-control": "no-cache" },
    body: frames.join(""),
  };
}

/** One SSE frame: `event: NAME\ndata: JSON\n\n`, or only the data line when `event` is undefined. */
export function sseFrame(event: string | undefined, data: unknown): string {
  const payload = typeof data === "string" ? data : JSON.stringify(data);
  return `${event === undefined ? "" : `event: ${event}\n`}data: ${payload}\n\n`;
}

/** The `retry-after` header for an error turn, when it names one. */
export function retryAfterHeader(retryAfter: number | undefined): Record<string, string> {
  return retryAfter === undefined ? {} : { "retry-after": String(retryAfter) };
}
