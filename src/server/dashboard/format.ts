/** Small display helpers shared by the dashboard's views. Pure. */

/** Dollars with two decimals (`$0.42`); four under a cent so that tiny costs are not shown as zero. */
export function dollars(value: number): string {
  if (value > 0 && value < 0.01) return `$${value.toFixed(4)}`;
  return `$${value.toFixed(2)}`;
}

/** A duration in milliseconds as `850 ms`, `12.3 s`, `4m 05s` or `2h 03m`. */
export function duration(milliseconds: number | undefined): string {
  if (milliseconds === undefined || !Number.isFinite(milliseconds)) return "–";
  if (milliseconds < 1000) return `${Math.round(milliseconds)} ms`;
  const seconds = milliseconds / 1000;
  if (seconds < 60) return `${seconds.toFixed(1)} s`;
  const minutes = Math.floor(seconds / 60);
  if (minutes < 60) return `${minutes}m ${String(Math.floor(seconds % 60)).padStart(2, "0")}s`;
  return `${Math.floor(minutes / 60)}h ${String(minutes % 60).padStart(2, "0")}m`;
}

/** The first 10 characters of a commit id. */
export function shortSha(sha: string | undefined): string {
  return sha ? sha.slice(0, 10) : "–";
}

/** An ISO time as `2026-12-01 11:10:22 UTC`. */
export function clock(iso: string | undefined): string {
  if (!iso) return "–";
  return `${iso.slice(0, 10)} ${iso.slice(11, 19)} UTC`;
}

/** A cap of 0 means none. */
export function capText(value: number, unit: (value: number) => string = String): string {
  return value > 0 ? unit(value) : "no cap";
}

/** Tokens as `12.3k`. */
export function tokens(count: number): string {
  return count >= 10_000 ? `${(count / 1000).toFixed(1)}k` : String(count);
}
