/**
 * The byte filter's tables (see trigger-filter.ts): the triggers spread over buckets, the nibble tables
 * the vector search looks positions up in, and each bucket's exact checks.
 */
import { buckets, checksBytes, checksPerBucket, checksStart, prefixBytes } from "./trigger-filter-layout.ts";

/** Tables built before, by trigger list: every digest of a process uses the same triggers. */
const tableCache = new Map<string, Uint8Array>();

export function tablesFor(triggers: readonly string[]): Uint8Array {
  const key = triggers.join("\n");
  let tables = tableCache.get(key);
  if (!tables) {
    tables = teddyTables(triggers);
    tableCache.set(key, tables);
  }
  return tables;
}

/**
 * The tables below the data: the nibble tables, and each bucket's exact checks (see `checksStart`).
 * The nibble tables: for byte `k` of a trigger's prefix, a 16-byte table indexed by the byte's low
 * nibble and one by its high nibble, each entry the buckets that accept that nibble there. A position
 * is a candidate when some bucket accepts all its `prefixBytes` bytes.
 */
function teddyTables(triggers: readonly string[]): Uint8Array {
  const groups: string[][] = Array.from({ length: buckets }, () => []);
  // Greedy: the triggers that let through the most text first, each into the bucket it widens least.
  const alone = new Map(triggers.map((trigger) => [trigger, passRate([trigger])]));
  const sorted = [...triggers].sort(
    (left, right) => (alone.get(right) as number) - (alone.get(left) as number) || (left < right ? -1 : 1),
  );
  // Every bucket full would put a trigger past its bucket's checks (into the next bucket's): refused.
  if (triggers.length > buckets * checksPerBucket)
    throw new Error(
      `the digest's byte filter holds at most ${buckets * checksPerBucket} triggers, not ${triggers.length}`,
    );
  const rates = groups.map(() => 0);
  for (const trigger of sorted) {
    let best = 0;
    let bestCost = Number.POSITIVE_INFINITY;
    for (let bucket = 0; bucket < buckets; bucket++) {
      const group = groups[bucket];
      if (group.length === checksPerBucket) continue;
      const cost = passRate([...group, trigger]) - rates[bucket];
      if (cost < bestCost) {
        bestCost = cost;
        best = bucket;
      }
    }
    groups[best].push(trigger);
    rates[best] = passRate(groups[best]);
  }
  const tables = new Uint8Array(checksStart + buckets * checksBytes);
  groups.forEach((group, bucket) => {
    const checks = checksStart + bucket * checksBytes;
    tables[checks] = group.length;
    group.forEach((trigger, index) => {
      for (let byte = 0; byte < Math.min(trigger.length, 8); byte++) {
        tables[checks + 8 + index * 16 + byte] = 0xff;
        tables[checks + 16 + index * 16 + byte] = trigger.charCodeAt(byte);
      }
    });
    const [low, high] = nibbleSets(group);
    for (let k = 0; k < prefixBytes; k++) {
      for (let nibble = 0; nibble < 16; nibble++) {
        if (low[k] & (1 << nibble)) tables[k * 32 + nibble] |= 1 << bucket;
        if (high[k] & (1 << nibble)) tables[k * 32 + 16 + nibble] |= 1 << bucket;
      }
    }
  });
  return tables;
}

/** Per prefix byte: the low nibbles and the high nibbles the triggers have there, as 16-bit sets. */
function nibbleSets(group: readonly string[]): [number[], number[]] {
  const low: number[] = [];
  const high: number[] = [];
  for (let k = 0; k < prefixBytes; k++) {
    let lowSet = 0;
    let highSet = 0;
    for (const trigger of group) {
      if (k >= trigger.length) {
        lowSet = 0xffff;
        highSet = 0xffff;
      } else {
        lowSet |= 1 << (trigger.charCodeAt(k) & 15);
        highSet |= 1 << (trigger.charCodeAt(k) >> 4);
      }
    }
    low.push(lowSet);
    high.push(highSet);
  }
  return [low, high];
}

/**
 * The share of positions of typical log text a bucket holding `group` lets through, from a rough
 * model of byte frequencies (lower-case letters, spaces and digits common; capitals and symbols less;
 * control and non-ASCII bytes rare).
 */
function passRate(group: readonly string[]): number {
  const [low, high] = nibbleSets(group);
  let rate = 1;
  for (let k = 0; k < prefixBytes; k++) {
    let share = 0;
    for (let highNibble = 0; highNibble < 16; highNibble++) {
      if (!(high[k] & (1 << highNibble))) continue;
      for (let lowNibble = 0; lowNibble < 16; lowNibble++) {
        if (low[k] & (1 << lowNibble)) share += byteFrequency(highNibble * 16 + lowNibble);
      }
    }
    rate *= share;
  }
  return rate;
}

function byteFrequency(code: number): number {
  if (code === 32) return 0.15;
  if (code >= 97 && code <= 122) return 0.03;
  if (code >= 48 && code <= 57) return 0.01;
  if (code >= 65 && code <= 90) return 0.005;
  if (code > 32 && code < 127) return 0.01;
  return 0.0005;
}
