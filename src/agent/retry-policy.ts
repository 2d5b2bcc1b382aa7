/**
 * When to retry a model call (pure): only on 429 (rate limited) and 529 (overloaded), waiting what the
 * server asks for in `retry-after` (seconds or an HTTP date) or `retry-after-ms`, else an exponential
 * backoff from one second. Other failures (a 500, a 401, a bad request) are not retried: the run ends
 * with them, and the loop's circuit breaker decides what a repeated outage means.
 */

/** Statuses worth waiting for. */
export const retryableStatuses: readonly number[] = [429, 529];

/** The longest wait a `retry-after` header is honoured for; past it the server is treated as down. */
export const longestRetryWaitMs = 5 * 60_000;

/**
 * Milliseconds to wait before retry number `attempt` (1-based) after an answer with `status` and
 * `headers`; undefined when the call must not be retried.
 */
export function retryDelayMs(
  status: number | undefined,
  headers: Record<string, string> | undefined,
  attempt: number,
  now = Date.now(),
): number | undefined {
  if (status === undefined || !retryableStatuses.includes(status)) return undefined;
  const asked = requestedDelayMs(headers ?? {}, now);
  if (asked !== undefined) return asked <= longestRetryWaitMs ? asked : undefined;
  return Math.min(1000 * 2 ** (attempt - 1), 30_000);
}

function requestedDelayMs(headers: Record<string, string>, now: number): number | undefined {
  const lower = Object.fromEntries(
    Object.entries(headers).map(([name, value]) => [name.toLowerCase(), value]),
  );
  const milliseconds = Number.parseFloat(lower["retry-after-ms"] ?? "");
  if (Number.isFinite(milliseconds) && milliseconds >= 0) return Math.round(milliseconds);
  const value = lower["retry-after"];
  if (value === undefined) return undefined;
  const seconds = Number.parseFloat(value);
  if (Number.isFinite(seconds) && /^\s*[\d.]+\s*$/.test(value))
    return Math.max(0, Math.round(seconds * 1000));
  const date = Date.parse(value);
  return Number.isNaN(date) ? undefined : Math.max(0, date - now);
}
