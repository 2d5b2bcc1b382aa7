/** The service's caps on what runs at once: loops in total, and loops per provider. */
import { UsageError } from "../errors.ts";

export interface Caps {
  /** Loops active at once, the service's and foreground runs together; 0 means no limit. */
  maxActive: number;
  /** Loops active at once per provider (`anthropic`, `openai`, ...); a provider not named has no limit. */
  maxPerProvider: Record<string, number>;
}

/** The default of `--max-active`. */
export const defaultMaxActive = 4;

/** Parses `--max-active`: a whole number, 0 for no limit. Throws `UsageError`. */
export function parseMaxActive(value: string | undefined): number {
  if (value === undefined) return defaultMaxActive;
  if (!/^\s*\d+\s*$/.test(value)) throw new UsageError(`--max-active: not a whole number: ${value}`);
  return Number(value);
}

/** Parses `--max-per-provider anthropic=2,openai=2`. Throws `UsageError` naming the bad entry. */
export function parseProviderCaps(value: string | undefined): Record<string, number> {
  const caps: Record<string, number> = {};
  if (value === undefined || value.trim() === "") return caps;
  for (const entry of value.split(",")) {
    const match = /^\s*([a-z][a-z0-9-]*)\s*=\s*(\d+)\s*$/.exec(entry);
    if (!match)
      throw new UsageError(
        `--max-per-provider: expected provider=count, e.g. anthropic=2,openai=2; got ${JSON.stringify(entry.trim())}`,
      );
    if (Object.hasOwn(caps, match[1])) throw new UsageError(`--max-per-provider: ${match[1]} is given twice`);
    caps[match[1]] = Number(match[2]);
  }
  return caps;
}

/** One line for the service's start message: `4 loops at once; anthropic 2, openai 2`. */
export function describeCaps(caps: Caps): string {
  const total =
    caps.maxActive === 0 ? "no limit on loops at once" : `at most ${caps.maxActive} loops at once`;
  const perProvider = Object.entries(caps.maxPerProvider).map(([provider, count]) => `${provider} ${count}`);
  return perProvider.length > 0 ? `${total}; per provider: ${perProvider.join(", ")}` : total;
}
