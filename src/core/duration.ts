/**
 * Durations in a spec: `30s`, `10m`, `2h`, `500ms`, or a plain number of seconds. 0 means no limit.
 * Returns milliseconds (finite), or undefined when the text is not a duration.
 */
export function parseDuration(value: string | number): number | undefined {
  if (typeof value === "number") {
    return Number.isFinite(value) && value >= 0 && Number.isFinite(value * 1000) ? value * 1000 : undefined;
  }
  const match = /^\s*(\d+(?:\.\d+)?)\s*(ms|s|m|h)?\s*$/.exec(value);
  if (!match) return undefined;
  const amount = Number(match[1]);
  const unit = match[2] ?? "s";
  const factor = { ms: 1, s: 1000, m: 60_000, h: 3_600_000 }[unit] ?? 1000;
  const milliseconds = Math.round(amount * factor);
  return Number.isFinite(milliseconds) ? milliseconds : undefined;
}

/**
 * The longest duration a spec may give a limit that loopwright waits out with a timer: Node's timers
 * hold at most 2^31 - 1 ms (about 24.8 days) and fire a longer one after 1 ms, so a gate's
 * `timeout: 1000h` would end the gate at once.
 */
export const longestTimerMs = 2 ** 31 - 1;

/** A spec's duration `value` in milliseconds when a timer can wait it out, else the problem to report. */
export function timerDuration(value: string | number): { ms: number } | { problem: string } {
  const milliseconds = parseDuration(value);
  const shown = JSON.stringify(value);
  if (milliseconds === undefined && !/^\s*\d+(?:\.\d+)?\s*(ms|s|m|h)?\s*$/.test(String(value))) {
    return { problem: `not a duration: ${shown} (use 30s, 10m, 2h)` };
  }
  if (milliseconds === undefined || milliseconds > longestTimerMs) {
    return { problem: `too long: ${shown} (at most ${Math.floor(longestTimerMs / 3_600_000)}h)` };
  }
  return { ms: milliseconds };
}

/** Renders milliseconds the way a person reads them: `850ms`, `12.3s`, `4m05s`, `1h02m`. */
export function formatDuration(milliseconds: number): string {
  // Compare rounded values, so that 999.7 ms reads `1.0s` (not `1000ms`) and 59.97 s reads `1m00s`.
  if (Math.round(milliseconds) < 1000) return `${Math.round(milliseconds)}ms`;
  if (Math.round(milliseconds / 100) < 600) return `${(milliseconds / 1000).toFixed(1)}s`;
  const totalSeconds = Math.round(milliseconds / 1000);
  const hours = Math.floor(totalSeconds / 3600);
  const minutes = Math.floor((totalSeconds % 3600) / 60);
  const seconds = totalSeconds % 60;
  if (hours > 0) return `${hours}h${String(minutes).padStart(2, "0")}m`;
  return `${minutes}m${String(seconds).padStart(2, "0")}s`;
}
