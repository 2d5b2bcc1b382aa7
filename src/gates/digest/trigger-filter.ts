/**
 * Finding the lines of a log that hold a trigger, over raw bytes, without decoding them: most of a
 * gigabyte log is noise that only needs counting. A small WebAssembly module (built byte by byte in
 * trigger-filter-module.ts: no toolchain) does the loops that touch every byte, with 16-byte vector
 * instructions: counting newlines, and the "Teddy" filter of Hyperscan, which looks up the first
 * `prefixBytes` bytes at each position in nibble tables to name the positions where some trigger may
 * start. Each candidate is then checked exactly (against its buckets' triggers in the module, in full
 * by `triggerAt`). The filter never misses a trigger: a trigger's own bytes always pass its tables.
 */

import { precomputedFilterData } from "./trigger-filter-data.ts";
import { dataStart, filterPadding, foundCapacity, foundStart, prefixBytes } from "./trigger-filter-layout.ts";
import { filterModuleBytes } from "./trigger-filter-module.ts";
import { tablesFor } from "./trigger-filter-tables.ts";

/** The part of the WebAssembly API used here (TypeScript's "es2024" library does not declare it). */
interface WebAssemblyApi {
  Memory: new (descriptor: { initial: number; maximum: number }) => { buffer: ArrayBuffer };
  Module: new (bytes: Uint8Array) => object;
  Instance: new (module: object, imports: object) => { exports: object };
}
/** Absent when Node runs without a JIT (`--jitless`): the filter then runs in plain JavaScript. */
const wasm = (globalThis as unknown as { WebAssembly?: WebAssemblyApi }).WebAssembly;

/** The searches over the memory, each `(from, to)` in addresses; see `filterModuleBytes`. */
interface FilterFunctions {
  collect(from: number, to: number): number;
  countNewlines(from: number, to: number): number;
  newlineAfter(from: number, to: number): number;
  newlineBefore(from: number, to: number): number;
}

/**
 * Triggers (Latin-1 text, each byte one character) searched in bytes held in WebAssembly memory. Put
 * the bytes to search into `bytes` from `start` (at most `capacity` of them), then ask with addresses
 * into `bytes`: the newline and trigger searches are pure and allocate nothing.
 */
export class TriggerFilter {
  /** The module's memory: the data goes in from `start`. */
  readonly bytes: Buffer;
  readonly start = dataStart;
  readonly capacity: number;
  /** Triggers by their first byte, each as bytes; a trigger that has another as a prefix is left out. */
  private readonly byFirstByte: Uint8Array[][] = Array.from({ length: 256 }, () => []);
  private readonly collect: (from: number, to: number) => number;
  /** The candidates last collected, in order: the first `foundCount`, from `foundNext` on not checked yet. */
  private readonly found: Int32Array;
  private foundCount = 0;
  private foundNext = 0;
  /** Where the last collection ended: the candidates before it not in `found` were looked at. */
  private foundEnd = 0;
  /** The last `from` asked for. */
  private lastFrom = 0;
  readonly countNewlines: (from: number, to: number) => number;
  /** The first newline in [from, to), or -1. */
  readonly newlineAfter: (from: number, to: number) => number;
  /** The last newline in [from, to), or -1. */
  readonly newlineBefore: (from: number, to: number) => number;

  /** `webAssembly: false` runs the searches in plain JavaScript (as without WebAssembly): for tests. */
  constructor(triggers: readonly string[], capacity: number, options: { webAssembly?: boolean } = {}) {
    const minimal = minimalTriggers(triggers);
    for (const trigger of minimal)
      this.byFirstByte[trigger.charCodeAt(0)].push(Buffer.from(trigger, "latin1"));
    this.capacity = capacity;
    const pages = Math.ceil((dataStart + capacity + filterPadding) / 65536);
    let functions: FilterFunctions;
    if (wasm && options.webAssembly !== false) {
      const memory = new wasm.Memory({ initial: pages, maximum: pages });
      this.bytes = Buffer.from(memory.buffer);
      functions = new wasm.Instance(filterModule(wasm), { filter: { memory } }).exports as FilterFunctions;
    } else {
      this.bytes = Buffer.alloc(pages * 65536);
      functions = javascriptFunctions(this.bytes);
    }
    const precomputed = precomputedFilterData();
    const key = minimal.join("\n");
    this.bytes.set(precomputed?.triggers === key ? precomputed.tables : tablesFor(minimal), 0);
    this.found = new Int32Array(this.bytes.buffer, this.bytes.byteOffset + foundStart, foundCapacity);
    this.collect = functions.collect;
    this.countNewlines = functions.countNewlines;
    this.newlineAfter = functions.newlineAfter;
    this.newlineBefore = functions.newlineBefore;
  }

  /** Call when the data changed: forgets the candidates collected in the old data. */
  reset(): void {
    this.foundCount = 0;
    this.foundNext = 0;
    this.foundEnd = 0;
    this.lastFrom = 0;
  }

  /**
   * Where the first trigger in [from, to) starts, or -1. A trigger may run past `to`. Candidates are
   * collected a batch at a time and kept for the next call, which is quickest when `from` only grows
   * between `reset`s.
   */
  nextTrigger(from: number, to: number): number {
    const found = this.found;
    if (from < this.lastFrom) {
      this.foundCount = 0;
      this.foundEnd = from;
    }
    this.lastFrom = from;
    for (;;) {
      while (this.foundNext < this.foundCount) {
        const position = found[this.foundNext];
        if (position >= from) {
          if (position >= to) return -1;
          if (this.triggerAt(position)) return position;
        }
        this.foundNext++;
      }
      if (this.foundEnd >= to) return -1;
      // Every candidate before `foundEnd` was looked at: collect the next batch.
      this.foundCount = this.collect(Math.max(from, this.foundEnd), to);
      this.foundNext = 0;
      this.foundEnd = this.foundCount === foundCapacity ? found[foundCapacity - 1] + 1 : to;
    }
  }

  /** Whether a trigger starts at `position`. */
  triggerAt(position: number): boolean {
    const bytes = this.bytes;
    for (const trigger of this.byFirstByte[bytes[position]]) {
      let index = 1;
      while (index < trigger.length && bytes[position + index] === trigger[index]) index++;
      if (index === trigger.length) return true;
    }
    return false;
  }
}

/**
 * The triggers a filter for `triggers` searches: each once, none empty, none that has another as a
 * prefix (the shorter is found first anyway), in their order. Throws for a trigger holding a newline.
 */
export function minimalTriggers(triggers: readonly string[]): string[] {
  const unique = [...new Set(triggers)].filter((trigger) => trigger.length > 0);
  if (unique.some((trigger) => trigger.includes("\n"))) throw new Error("a trigger holds a newline");
  return unique.filter((trigger) => !unique.some((other) => other !== trigger && trigger.startsWith(other)));
}

let compiled: object | undefined;

/**
 * The module, compiled once; with the plain `swizzle` where the relaxed one is not supported. Its bytes
 * are the build's (trigger-filter-data.ts) when they are there.
 */
function filterModule(api: WebAssemblyApi): object {
  if (!compiled) {
    const precomputed = precomputedFilterData();
    try {
      compiled = new api.Module(precomputed?.relaxedModule ?? filterModuleBytes(true));
    } catch {
      compiled = new api.Module(precomputed?.plainModule ?? filterModuleBytes(false));
    }
  }
  return compiled;
}

/**
 * The module's functions in plain JavaScript, for a Node without WebAssembly: the same answers,
 * slower, and `collect` leaves the exact check of its candidates to `triggerAt`.
 */
function javascriptFunctions(bytes: Uint8Array): FilterFunctions {
  const found = new Int32Array(bytes.buffer, bytes.byteOffset + foundStart, foundCapacity);
  return {
    collect(from, to) {
      let count = 0;
      for (let position = from; position < to; position++) {
        let buckets = 0xff;
        for (let k = 0; k < prefixBytes && buckets !== 0; k++) {
          const byte = bytes[position + k];
          buckets &= bytes[k * 32 + (byte & 15)] & bytes[k * 32 + 16 + (byte >> 4)];
        }
        if (buckets === 0) continue;
        found[count++] = position;
        if (count === foundCapacity) break;
      }
      return count;
    },
    countNewlines(from, to) {
      let count = 0;
      for (let index = from; index < to; index++) if (bytes[index] === 10) count++;
      return count;
    },
    newlineAfter(from, to) {
      for (let index = from; index < to; index++) if (bytes[index] === 10) return index;
      return -1;
    },
    newlineBefore(from, to) {
      for (let index = to - 1; index >= from; index--) if (bytes[index] === 10) return index;
      return -1;
    },
  };
}
