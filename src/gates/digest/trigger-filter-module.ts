/**
 * The byte filter's WebAssembly module (see trigger-filter.ts), assembled byte by byte: the few
 * opcodes it uses, named, and a builder that names blocks instead of counting their depth.
 */
import {
  checksBytes,
  checksStart,
  foundCapacity,
  foundStart,
  prefixBytes,
  scratchStart,
} from "./trigger-filter-layout.ts";

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
  /** `i8x16.relaxed_swizzle`: one byte shuffle; the same as `swizzle` for indexes below 16, as nibbles are. */
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
export function filterModuleBytes(relaxed: boolean): Uint8Array {
  const swizzle = relaxed ? vector.relaxedSwizzle : vector.swizzle;
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
