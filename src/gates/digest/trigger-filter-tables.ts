/**
 * The byte filter's tables (see trigger-filter.ts): the triggers spread over buckets, the nibble tables
 * the vector search looks positions up in, and each bucket's exact checks.
 */
import { buckets, checksBytes, checksPerBucket, checksStart, prefixBytes } from "./trigger-filter-layout.ts";

/** Tables built before, by trigger list: every digest of a process uses the same triggers. */
const tableCache = new Map<string, Uint8Array>();

/** `byteFrequency` of each byte, looked up by `passRate`. */
const frequencies = Float64Array.from({ length: 256 }, (_, code) => byteFrequency(code));

/** The tables for `triggers` (see `teddyTables`), made once per list in a process. */
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
 *
 * Built once per process, on the way to the first gate's digest (in a fresh controller, between the base
 * commit's gates and the maker's first command): each trigger's nibble sets are made once and a bucket's
 * are the union of its triggers' (bitwise or), so that weighing a trigger in each bucket allocates nothing
 * (3-4 ms of a fresh process's CPU where the sets of every bucket were made again for every weighing).
 */
export function teddyTables(triggers: readonly string[]): Uint8Array {
  const groups: string[][] = Array.from({ length: buckets }, () => []);
  const ownSets = new Map(triggers.map((trigger) => [trigger, nibbleSets(trigger)]));
  const setsOf = (trigger: string) => ownSets.get(trigger) as Int32Array;
  // Greedy: the triggers that let through the most text first, each into the bucket it widens least.
  const alone = new Map(triggers.map((trigger) => [trigger, passRate(setsOf(trigger))]));
  const sorted = [...triggers].sort(
    (left, right) => (alone.get(right) as number) - (alone.get(left) as number) || (left < right ? -1 : 1),
  );
  // Every bucket full would put a trigger past its bucket's checks (into the next bucket's): refused.
  if (triggers.length > buckets * checksPerBucket)
    throw new Error(
      `the digest's byte filter holds at most ${buckets * checksPerBucket} triggers, not ${triggers.length}`,
    );
  const rates = groups.map(() => 0);
  const bucketSets = groups.map(() => new Int32Array(2 * prefixBytes));
  const widened = new Int32Array(2 * prefixBytes);
  for (const trigger of sorted) {
    const own = setsOf(trigger);
    let best = 0;
    let bestCost = Number.POSITIVE_INFINITY;
    for (let bucket = 0; bucket < buckets; bucket++) {
      if (groups[bucket].length === checksPerBucket) continue;
      for (let index = 0; index < widened.length; index++)
        widened[index] = bucketSets[bucket][index] | own[index];
      const cost = passRate(widened) - rates[bucket];
      if (cost < bestCost) {
        bestCost = cost;
        best = bucket;
      }
    }
    groups[best].push(trigger);
    for (let index = 0; index < widened.length; index++) bucketSets[best][index] |= own[index];
    rates[best] = passRate(bucketSets[best]);
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
    const sets = bucketSets[bucket];
    for (let k = 0; k < prefixBytes; k++) {
      for (let nibble = 0; nibble < 16; nibble++) {
        if (sets[2 * k] & (1 << nibble)) tables[k * 32 + nibble] |= 1 << bucket;
        if (sets[2 * k + 1] & (1 << nibble)) tables[k * 32 + 16 + nibble] |= 1 << bucket;
      }
    }
  });
  return tables;
}

/**
 * Per prefix byte `k` of `trigger`: at `2k` the low nibble it has there, at `2k + 1` the high nibble,
 * each as a 16-bit set; every nibble past its end (it accepts any byte there). A group's sets are the
 * union of its triggers'.
 */
function nibbleSets(trigger: string): Int32Array {
  const sets = new Int32Array(2 * prefixBytes);
  for (let k = 0; k < prefixBytes; k++) {
    if (k >= trigger.length) {
      sets[2 * k] = 0xffff;
      sets[2 * k + 1] = 0xffff;
    } else {
      sets[2 * k] = 1 << (trigger.charCodeAt(k) & 15);
      sets[2 * k + 1] = 1 << (trigger.charCodeAt(k) >> 4);
    }
  }
  return sets;
}

/**
 * The share of positions of typical log text a bucket with nibble sets `sets` (see `nibbleSets`) lets
 * through, from a rough model of byte frequencies (`byteFrequency`).
 */
function passRate(sets: Int32Array): number {
  let rate = 1;
  for (let k = 0; k < prefixBytes; k++) {
    const low = sets[2 * k];
    const high = sets[2 * k + 1];
    let share = 0;
    // The bytes whose nibbles are both in the sets, in ascending order (each set's lowest bit first).
    for (let highs = high; highs !== 0; highs &= highs - 1) {
      const row = (31 - Math.clz32(highs & -highs)) * 16;
      for (let lows = low; lows !== 0; lows &= lows - 1)
        share += frequencies[row + 31 - Math.clz32(lows & -lows)];
    }
    rate *= share;
  }
  return rate;
}

/**
 * A rough model of byte frequencies in log text: lower-case letters, spaces and digits common; capitals
 * and symbols less; control and non-ASCII bytes rare.
 */
function byteFrequency(code: number): number {
  if (code === 32) return 0.15;
  if (code >= 97 && code <= 122) return 0.03;
  if (code >= 48 && code <= 57) return 0.01;
  if (code >= 65 && code <= 90) return 0.005;
  if (code > 32 && code < 127) return 0.01;
  return 0.0005;
}
