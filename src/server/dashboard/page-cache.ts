/**
 * Loop pages kept between requests, rendered, redacted and encoded once. What a loop's page shows is a
 * function of its timeline up to `lastSeq`, its display status, its queue position and the UTC day (its
 * "cost today"): `loopPageKey` names exactly these, so a page kept under an unchanged key is the page a
 * fresh render would give. Any new event (a secret in it included) changes `lastSeq`, hence the key,
 * and the page is rendered and redacted anew. Pages with a one-off notice are never kept.
 *
 * Bounded: the least recently answered pages go first once the kept bytes pass `maximumBytes`.
 */
import type { RedactedBytes } from "../redact-answers.ts";
import type { LoopView } from "./loop-view.ts";

export interface PageCache {
  /** The bytes kept under `key`, if any (and marks them recently used). */
  get(key: string): RedactedBytes | undefined;
  set(key: string, bytes: RedactedBytes): void;
  /** Bytes kept now (for tests). */
  readonly bytes: number;
}

/** 32 MiB: some hundred loop pages of a 100-iteration loop. */
const defaultMaximumBytes = 32 * 1024 * 1024;

export function createPageCache(maximumBytes = defaultMaximumBytes): PageCache {
  const entries = new Map<string, RedactedBytes>();
  let total = 0;
  return {
    get(key) {
      const bytes = entries.get(key);
      if (bytes === undefined) return undefined;
      entries.delete(key);
      entries.set(key, bytes);
      return bytes;
    },
    set(key, bytes) {
      const previous = entries.get(key);
      if (previous) total -= previous.byteLength;
      entries.delete(key);
      if (bytes.byteLength > maximumBytes) return;
      entries.set(key, bytes);
      total += bytes.byteLength;
      for (const [oldKey, oldBytes] of entries) {
        if (total <= maximumBytes) break;
        entries.delete(oldKey);
        total -= oldBytes.byteLength;
      }
    },
    get bytes() {
      return total;
    },
  };
}

/**
 * The key of a loop's page (`kind`: the whole page or its live fragment), or undefined when it must not
 * be kept (the loop could not be read).
 */
export function loopPageKey(
  kind: "page" | "fragment",
  view: LoopView,
  now: Date = new Date(),
): string | undefined {
  if (!view.state) return undefined;
  return JSON.stringify([
    kind,
    view.loop.id,
    view.loop.createdAt,
    view.lastSeq,
    view.status,
    view.queuePosition ?? null,
    now.toISOString().slice(0, 10),
  ]);
}
