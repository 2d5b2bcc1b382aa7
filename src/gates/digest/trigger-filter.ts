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
const wasm = (globalThis as unknown as { WebAssembly: WebAssemblyApi }).WebAssembly;

/** Bytes of each trigger the filter looks at; shorter triggers accept any byte past their end. */
const prefixBytes = 5;
/** Triggers are spread over 8 buckets (a bit each in the tables), so that each table stays selective. */
const buckets = 8;
/** Where the data starts in the module's memory: the tables are below. */
const dataStart = 1024;
/** Bytes read past a position (16 lanes, plus the prefix): kept as padding after the data. */
const padding = 64;

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
  private readonly candidate: (from: number, to: number) => number;
  readonly countNewlines: (from: number, to: number) => number;
  /** The first newline in [from, to), or -1. */
  readonly newlineAfter: (from: number, to: number) => number;
  /** The last newline in [from, to), or -1. */
  readonly newlineBefore: (from: number, to: number) => number;

  constructor(triggers: readonly string[], capacity: number) {
    const unique = [...new Set(triggers)].filter((trigger) => trigger.length > 0);
    if (unique.some((trigger) => trigger.includes("\n"))) throw new Error("a trigger holds a newline");
    const minimal = unique.filter(
      (trigger) => !unique.some((other) => other !== trigger && trigger.startsWith(other)),
    );
    for (const trigger of minimal)
      this.byFirstByte[trigger.charCodeAt(0)].push(Buffer.from(trigger, "latin1"));
    this.capacity = capacity;
    const pages = Math.ceil((dataStart + capacity + padding) / 65536);
    const memory = new wasm.Memory({ initial: pages, maximum: pages });
    this.bytes = Buffer.from(memory.buffer);
    this.bytes.set(teddyTables(minimal), 0);
    const instance = new wasm.Instance(filterModule(), { filter: { memory } });
    const exports = instance.exports as Record<string, (from: number, to: number) => number>;
    this.candidate = exports.candidate;
    this.countNewlines = exports.countNewlines;
    this.newlineAfter = exports.newlineAfter;
    this.newlineBefore = exports.newlineBefore;
  }

  /** Where the first trigger in [from, to) starts, or -1. A trigger may run past `to`. */
  nextTrigger(from: number, to: number): number {
    for (let position = from; ; ) {
      const found = this.candidate(position, to);
      if (found === -1 || this.triggerAt(found)) return found;
      position = found + 1;
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
      const cost = passRate([...group, trigger]) - (group.length > 0 ? passRate(group) : 0);
      if (cost < bestCost) {
        bestCost = cost;
        best = bucket;
      }
    }
    groups[best].push(trigger);
  }
  const tables = new Uint8Array(prefixBytes * 32);
  groups.forEach((group, bucket) => {
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

function filterModule(): object {
  compiled ??= new wasm.Module(filterModuleBytes());
  return compiled;
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
  i32Shl: 0x74,
} as const;
const vector = {
  load: 0x00,
  const: 0x0c,
  swizzle: 0x0e,
  splat: 0x0f,
  eq: 0x23,
  not: 0x4d,
  and: 0x4e,
  anyTrue: 0x53,
  bitmask: 0x64,
  shrU: 0x6d,
} as const;
const i32 = 0x7f;
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
const simd = (code: number) => [0xfd, code];
/** v128.load of the 16 bytes at the address on the stack, plus `offset`. */
const load = (offset = 0) => [...simd(vector.load), 0, ...unsigned(offset)];
const splatByte = (value: number) => [...constant(value), ...simd(vector.splat)];

/**
 * The module: imports `filter.memory`; exports `candidate`, `countNewlines`, `newlineAfter`,
 * `newlineBefore`, each `(from, to) => i32` over addresses in the memory.
 */
function filterModuleBytes(): Uint8Array {
  // Parameters: 0 from, 1 to. `candidate`'s locals: 2 bits (i32), 3 vector, 4 matches, then the tables.
  const tableLocal = (k: number, high: boolean) => 5 + k * 2 + (high ? 1 : 0);
  const lanes = (k: number) => [
    ...get(0),
    ...load(k),
    ...set(3),
    ...get(tableLocal(k, false)),
    ...get(3),
    ...splatByte(15),
    ...simd(vector.and),
    ...simd(vector.swizzle),
    ...get(tableLocal(k, true)),
    ...get(3),
    ...constant(4),
    ...simd(vector.shrU),
    ...simd(vector.swizzle),
    ...simd(vector.and),
  ];
  const candidate = body(
    [
      [1, i32],
      [2 + prefixBytes * 2, v128],
    ],
    [
      ...Array.from({ length: prefixBytes * 2 }, (_, index) => [
        ...constant(index * 16),
        ...load(),
        ...set(5 + index),
      ]).flat(),
      op.loop,
      empty,
      // from >= to: none.
      ...get(0),
      ...get(1),
      ...[op.i32GeS, op.if, empty, ...constant(-1), op.return, op.end],
      ...lanes(0),
      ...Array.from({ length: prefixBytes - 1 }, (_, k) => [...lanes(k + 1), ...simd(vector.and)]).flat(),
      ...set(4),
      ...get(4),
      ...simd(vector.anyTrue),
      op.if,
      empty,
      // The first lane whose buckets are not all zero: from + its index, when before `to`.
      ...get(4),
      ...splatByte(0),
      ...simd(vector.eq),
      ...simd(vector.not),
      ...simd(vector.bitmask),
      op.i32Ctz,
      ...get(0),
      op.i32Add,
      ...set(2),
      ...get(2),
      ...constant(-1),
      ...get(2),
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
  const functions = [candidate, countNewlines, newlineAfter, newlineBefore];
  const names = ["candidate", "countNewlines", "newlineAfter", "newlineBefore"];
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
