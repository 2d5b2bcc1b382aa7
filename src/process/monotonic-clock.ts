/**
 * Milliseconds on a monotonic clock, for durations and deadlines (not the time of day). Not
 * `performance.now()`: the first read of `performance` loads Node's performance timing modules (1-4 ms
 * of CPU), which the first command of a run (the base commit's gate) paid just before it started.
 */
export function monotonicMs(): number {
  const [seconds, nanoseconds] = process.hrtime();
  return seconds * 1000 + nanoseconds / 1e6;
}
