/**
 * Finding the lines of a log that hold a trigger, over raw bytes, without decoding them: most of a
 * gigabyte log is noise that only needs counting. A small WebAssembly module (built below, byte by
 * byte: no toolchain) does the two loops that touch every byte with 16-byte vector instructions:
 * counting newlines, and the "Teddy" filter of Hyperscan, which looks up the first `prefixBytes` bytes
 * at each position in nibble tables to name the positions where some trigger may start. Each candidate
 * is then checked against the triggers in JavaScript. The filter never misses a trigger (a trigger's
 * own bytes always pass its tables); it only reports positions that turn out not to be one.
 */

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

/** Bytes of each trigger the filter looks at; shorter triggers accept any byte past their end. */
const prefixBytes = 5;
/** Triggers are spread over 8 buckets (a bit each in the tables), so that each table stays selective. */
const buckets = 8;
/** Where `collect` puts a vector of matches to read its lanes. */
const scratchStart = 256;
/** Where the candidates of `collect` go in the module's memory (i32 each), and how many fit. */
const foundStart = 1024;
const foundCapacity = 4096;
/**
 * Where the exact check of each bucket is: a count (i32, padded to 8 bytes), then per trigger a mask
 * and a value (i64 each): the trigger's first 8 bytes at most, and the bytes that must equal them.
 */
const checksStart = 20 * 1024;
const checksPerBucket = 16;
const checksBytes = 8 + checksPerBucket * 16;
/** Where the data starts in the module's memory: the tables and the candidates are below. */
const dataStart = 32 * 1024;
/**
 * Bytes read past the end of the data (16 lanes, plus a trigger's first 8 bytes): data ends at least
 * this far before the memory does. Reads before the data are up to 16 bytes.
 */
export const filterPadding = 64;

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
    const unique = [...new Set(triggers)].filter((trigger) => trigger.length > 0);
    if (unique.some((trigger) => trigger.includes("\n"))) throw new Error("a trigger holds a newline");
    const minimal = unique.filter(
      (trigger) => !unique.some((other) => other !== trigger && trigger.startsWith(other)),
    );
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
    this.bytes.set(tablesFor(minimal), 0);
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

/** Tables built before, by trigger list: every digest of a process uses the same triggers. */
const tableCache = new Map<string, Uint8Array>();

function tablesFor(triggers: readonly string[]): Uint8Array {
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
  const sorted = [...triggers].sort(
    (left, right) => passRate([right]) - passRate([left]) || (left < right ? -1 : 1),
  );
  for (const trigger of sorted) {
    let best = 0;
    let bestCost = Number.POSITIVE_INFINITY;
    for (let bucket = 0; bucket < buckets; bucket++) {
      const group = groups[bucket];
      if (group.length === checksPerBucket) continue;
      const cost = passRate([...group, trigger]) - (group.length > 0 ? passRate(group) : 0);
      if (cost < bestCost) {
        bestCost = cost;
        best = bucket;
      }
    }
    groups[best].push(trigger);
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
    for (let code = 0; code < 256; code++) {
      if (low[k] & (1 << (code & 15)) && high[k] & (1 << (code >> 4))) share += byteFrequency(code);
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

let compiled: object | undefined;

/** The module, compiled once; with the plain `swizzle` where the relaxed one is not supported. */
function filterModule(api: WebAssemblyApi): object {
  if (!compiled) {
    try {
      compiled = new api.Module(filterModuleBytes(vector.relaxedSwizzle));
    } catch {
      compiled = new api.Module(filterModuleBytes(vector.swizzle));
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

// WebAssembly opcodes used below (core, then the 0xfd-prefixed vector ones).
const op = {
  block: 0x02,
  loop: 0x03,
  if: 0x04,
  end: 0x0b,
  br: 0x0c,
  brIf: 0x0d,
  return: 0x0f,
  select: 0x1b,
  localGet: 0x20,
  localSet: 0x21,
  localTee: 0x22,
  i32Const: 0x41,
  i32Eqz: 0x45,
  i32LtS: 0x48,
  i32GeS: 0x4e,
  i32LeS: 0x4c,
  i32Clz: 0x67,
  i32Ctz: 0x68,
  i32Popcnt: 0x69,
  i32Add: 0x6a,
  i32Sub: 0x6b,
  i32And: 0x71,
  i32Mul: 0x6c,
  i64Eq: 0x51,
  i64And: 0x83,
  i32Shl: 0x74,
} as const;
const vector = {
  load: 0x00,
  store: 0x0b,
  const: 0x0c,
  swizzle: 0x0e,
  /** `i8x16.relaxed_swizzle`: a single byte shuffle; the same as `swizzle` for indexes below 16, as nibbles are. */
  relaxedSwizzle: 0x100,
  splat: 0x0f,
  eq: 0x23,
  not: 0x4d,
  and: 0x4e,
  anyTrue: 0x53,
  bitmask: 0x64,
  shrU: 0x6d,
} as const;
const i32 = 0x7f;
const i64 = 0x7e;
const v128 = 0x7b;
const empty = 0x40;

/** Signed LEB128, as i32.const takes. */
function signed(value: number): number[] {
  const out: number[] = [];
  for (;;) {
    const byte = value & 0x7f;
    value >>= 7;
    if ((value === 0 && !(byte & 0x40)) || (value === -1 && byte & 0x40)) {
      out.push(byte);
      return out;
    }
    out.push(byte | 0x80);
  }
}

function unsigned(value: number): number[] {
  const out: number[] = [];
  do {
    let byte = value & 0x7f;
    value >>>= 7;
    if (value !== 0) byte |= 0x80;
    out.push(byte);
  } while (value !== 0);
  return out;
}

const get = (local: number) => [op.localGet, local];
const set = (local: number) => [op.localSet, local];
const constant = (value: number) => [op.i32Const, ...signed(value)];
const simd = (code: number) => [0xfd, ...unsigned(code)];
/** v128.load of the 16 bytes at the address on the stack, plus `offset`. */
const load = (offset = 0) => [...simd(vector.load), 0, ...unsigned(offset)];
const load8 = (offset: number) => [0x2d, 0, ...unsigned(offset)];
const load32 = (offset: number) => [0x28, 2, ...unsigned(offset)];
const load64 = (offset: number) => [0x29, 3, ...unsigned(offset)];
const vectorStore = (offset: number) => [...simd(vector.store), 0, ...unsigned(offset)];
/** i32.store of the value on the stack at the address below it, plus `offset`. */
const store = (offset: number) => [0x36, 2, ...unsigned(offset)];
const splatByte = (value: number) => [...constant(value), ...simd(vector.splat)];

/**
 * The module: imports `filter.memory`; exports `collect`, `countNewlines`, `newlineAfter`,
 * `newlineBefore`, each `(from, to) => i32` over addresses in the memory. `collect` writes the
 * candidates in [from, to) (positions where the tables accept the bytes), in order, from `foundStart`,
 * and returns how many, at most `foundCapacity`.
 */
function filterModuleBytes(swizzle: number): Uint8Array {
  // Parameters: 0 from, 1 to. `collect`'s locals: i32 count, bits, position, bucket bits, entry,
  // remaining, lane; i64 the bytes at the position; vectors: the bytes, the matches, the tables, then
  // the low-nibble mask.
  const [count, bits, position, bucketBits, entry, remaining, lane, word] = [2, 3, 4, 5, 6, 7, 8, 9];
  const bytesLocal = 10;
  const matches = 11;
  const tableLocal = (k: number, high: boolean) => 12 + k * 2 + (high ? 1 : 0);
  const nibbleMask = 12 + prefixBytes * 2;
  const lanes = (k: number) => [
    ...get(0),
    ...load(k),
    ...set(bytesLocal),
    ...get(tableLocal(k, false)),
    ...get(bytesLocal),
    ...get(nibbleMask),
    ...simd(vector.and),
    ...simd(swizzle),
    ...get(tableLocal(k, true)),
    ...get(bytesLocal),
    ...constant(4),
    ...simd(vector.shrU),
    ...simd(swizzle),
    ...simd(vector.and),
  ];
  const returnCountIf = (condition: number[]) =>
    new Code().add(condition).if().add(get(count), op.return).end().bytes;
  const collect = new Code()
    .add(splatByte(15), set(nibbleMask))
    .add(
      Array.from({ length: prefixBytes * 2 }, (_, index) => [
        ...constant(index * 16),
        ...load(),
        ...set(tableLocal(0, false) + index),
      ]).flat(),
    )
    .loop("block")
    .add(returnCountIf([...get(0), ...get(1), op.i32GeS]))
    .add(lanes(0))
    .add(Array.from({ length: prefixBytes - 1 }, (_, k) => [...lanes(k + 1), ...simd(vector.and)]).flat())
    .add(set(matches), get(matches), simd(vector.anyTrue))
    .if()
    // Each lane whose buckets are not all zero, in order: position from + lane, while before `to`.
    .add(constant(scratchStart), get(matches), vectorStore(0))
    .add(get(matches), splatByte(0), simd(vector.eq), simd(vector.not), simd(vector.bitmask), set(bits))
    .loop("lane")
    .add(get(bits), op.i32Ctz, set(lane), get(0), get(lane), op.i32Add, set(position))
    .add(returnCountIf([...get(position), ...get(1), op.i32GeS]))
    .add(get(lane), load8(scratchStart), set(bucketBits), get(position), load64(0), set(word))
    .block("next")
    .block("emit")
    // The exact checks of each bucket the lane names: a trigger whose first 8 bytes at most are there.
    .loop("bucket")
    .add(get(bucketBits), op.i32Eqz)
    .brIf("next")
    .add(get(bucketBits), op.i32Ctz, constant(checksBytes), op.i32Mul, constant(checksStart), op.i32Add)
    .add(set(entry), get(entry), load32(0), set(remaining))
    .block("bucket done")
    .loop("entry")
    .add(get(remaining), op.i32Eqz)
    .brIf("bucket done")
    .add(get(word), get(entry), load64(8), op.i64And, get(entry), load64(16), op.i64Eq)
    .brIf("emit")
    .add(
      get(entry),
      constant(16),
      op.i32Add,
      set(entry),
      get(remaining),
      constant(1),
      op.i32Sub,
      set(remaining),
    )
    .br("entry")
    .end()
    .end()
    .add(get(bucketBits), get(bucketBits), constant(1), op.i32Sub, op.i32And, set(bucketBits))
    .br("bucket")
    .end()
    .end()
    // found[count++] = position; a full batch ends the call.
    .add(get(count), constant(2), op.i32Shl, get(position), store(foundStart))
    .add(get(count), constant(1), op.i32Add, set(count))
    .add(returnCountIf([...get(count), ...constant(foundCapacity), op.i32GeS]))
    .end()
    .add(get(bits), get(bits), constant(1), op.i32Sub, op.i32And, set(bits), get(bits))
    .brIf("lane")
    .end()
    .end()
    .add(get(0), constant(16), op.i32Add, set(0))
    .br("block")
    .end()
    .add(get(count)).bytes;
  // The newlines among the 16 bytes at `from`, as bits (lane i: bit i).
  const newlineBits = [...get(0), ...load(), ...splatByte(10), ...simd(vector.eq), ...simd(vector.bitmask)];
  // Locals: 2 total/bits, 3 bits.
  const countNewlines = body(
    [[2, i32]],
    [
      op.loop,
      empty,
      ...get(0),
      ...get(1),
      ...[op.i32GeS, op.if, empty, ...get(2), op.return, op.end],
      ...newlineBits,
      ...set(3),
      // Fewer than 16 bytes left: only the lanes before `to`.
      ...get(1),
      ...get(0),
      op.i32Sub,
      ...constant(16),
      op.i32LtS,
      op.if,
      empty,
      ...get(3),
      ...constant(1),
      ...get(1),
      ...get(0),
      op.i32Sub,
      op.i32Shl,
      ...constant(1),
      op.i32Sub,
      op.i32And,
      ...set(3),
      op.end,
      ...get(2),
      ...get(3),
      op.i32Popcnt,
      op.i32Add,
      ...set(2),
      ...get(0),
      ...constant(16),
      op.i32Add,
      ...set(0),
      op.br,
      0,
      op.end,
      ...get(2),
    ],
  );
  // Locals: 2 bits, 3 position.
  const newlineAfter = body(
    [[2, i32]],
    [
      op.loop,
      empty,
      ...get(0),
      ...get(1),
      ...[op.i32GeS, op.if, empty, ...constant(-1), op.return, op.end],
      ...newlineBits,
      ...set(2),
      ...get(2),
      op.if,
      empty,
      ...get(2),
      op.i32Ctz,
      ...get(0),
      op.i32Add,
      ...set(3),
      ...get(3),
      ...constant(-1),
      ...get(3),
      ...get(1),
      op.i32LtS,
      op.select,
      op.return,
      op.end,
      ...get(0),
      ...constant(16),
      op.i32Add,
      ...set(0),
      op.br,
      0,
      op.end,
      ...constant(-1),
    ],
  );
  // Scans back 16 bytes at a time from `to`; locals: 2 bits, 3 position. Reads up to 16 bytes below
  // `from`, which the tables' space below the data allows.
  const newlineBefore = body(
    [[2, i32]],
    [
      op.loop,
      empty,
      ...get(1),
      ...get(0),
      ...[op.i32LeS, op.if, empty, ...constant(-1), op.return, op.end],
      ...get(1),
      ...constant(16),
      op.i32Sub,
      ...set(1),
      ...get(1),
      ...load(),
      ...splatByte(10),
      ...simd(vector.eq),
      ...simd(vector.bitmask),
      ...set(2),
      ...get(2),
      op.if,
      empty,
      // The highest lane: to + 31 - clz(bits); a newline below `from` means there is none.
      ...get(1),
      ...constant(31),
      op.i32Add,
      ...get(2),
      op.i32Clz,
      op.i32Sub,
      ...set(3),
      ...get(3),
      ...constant(-1),
      ...get(3),
      ...get(0),
      op.i32GeS,
      op.select,
      op.return,
      op.end,
      op.br,
      0,
      op.end,
      ...constant(-1),
    ],
  );
  const functions = [
    body(
      [
        [7, i32],
        [1, i64],
        [3 + prefixBytes * 2, v128],
      ],
      collect,
    ),
    countNewlines,
    newlineAfter,
    newlineBefore,
  ];
  const names = ["collect", "countNewlines", "newlineAfter", "newlineBefore"];
  const text = (value: string) => [...unsigned(value.length), ...Buffer.from(value, "latin1")];
  const section = (id: number, content: number[]) => [id, ...unsigned(content.length), ...content];
  const vectorOf = (items: number[][]) => [...unsigned(items.length), ...items.flat()];
  return new Uint8Array([
    ...[0x00, 0x61, 0x73, 0x6d, 0x01, 0x00, 0x00, 0x00],
    // Types: (i32, i32) -> i32.
    ...section(1, vectorOf([[0x60, 2, i32, i32, 1, i32]])),
    // Imports: filter.memory (no maximum needed here: the host's memory decides).
    ...section(2, vectorOf([[...text("filter"), ...text("memory"), 0x02, 0x00, 0x00]])),
    ...section(3, vectorOf(functions.map(() => [0]))),
    ...section(7, vectorOf(names.map((name, index) => [...text(name), 0x00, index]))),
    ...section(10, vectorOf(functions)),
  ]);
}

/** Code with named blocks: `br` and `brIf` name the block they leave or the loop they repeat. */
class Code {
  readonly bytes: number[] = [];
  private readonly labels: string[] = [];

  add(...parts: (number | number[])[]): this {
    for (const part of parts) {
      if (typeof part === "number") this.bytes.push(part);
      else for (const byte of part) this.bytes.push(byte);
    }
    return this;
  }

  block(label: string): this {
    this.labels.push(label);
    return this.add(op.block, empty);
  }

  loop(label: string): this {
    this.labels.push(label);
    return this.add(op.loop, empty);
  }

  if(): this {
    this.labels.push("");
    return this.add(op.if, empty);
  }

  end(): this {
    this.labels.pop();
    return this.add(op.end);
  }

  br(label: string): this {
    return this.add(op.br, this.depth(label));
  }

  brIf(label: string): this {
    return this.add(op.brIf, this.depth(label));
  }

  private depth(label: string): number {
    const index = this.labels.lastIndexOf(label);
    if (index === -1) throw new Error(`no block ${label}`);
    return this.labels.length - 1 - index;
  }
}

/** A function body: its locals as [count, type] runs, then its code. */
function body(locals: [number, number][], code: number[]): number[] {
  const content = [
    ...unsigned(locals.length),
    ...locals.flatMap(([count, type]) => [...unsigned(count), type]),
    ...code,
    op.end,
  ];
  return [...unsigned(content.length), ...content];
}
