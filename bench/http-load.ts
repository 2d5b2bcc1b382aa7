/**
 * Load on one URL with autocannon's programmatic API: `connections` clients, each sending its next request
 * when the previous answer arrived, until `requests` answers came (a count, not a duration: a run cut at
 * a deadline would leave requests in flight that the server still works on during the next run); every
 * response's latency is kept (autocannon's own histogram reports no 95th percentile).
 */
import autocannon from "autocannon";

export interface LoadResult {
  /** Milliseconds from request to complete response, one per 2xx answer. */
  latencies: number[];
  requests: number;
  /** Answers that were not 2xx, plus connection errors and timeouts. */
  failures: number;
  seconds: number;
}

export function loadUrl(
  url: string,
  options: { connections: number; requests: number },
): Promise<LoadResult> {
  return new Promise((resolve, reject) => {
    const latencies: number[] = [];
    let failures = 0;
    const instance = autocannon(
      { url, connections: options.connections, amount: options.requests, timeout: 60 },
      (error, result) => {
        if (error) reject(error);
        else
          resolve({
            latencies,
            requests: result.requests.total,
            failures: failures + result.errors + result.timeouts,
            seconds: result.duration,
          });
      },
    );
    instance.on("response", (_client, statusCode, _bytes, ms) => {
      if (statusCode >= 200 && statusCode < 300) latencies.push(ms);
      else failures++;
    });
  });
}
