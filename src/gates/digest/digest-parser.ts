/**
 * The incremental digest parser: feed it a log in pieces of any size, get a `Digest` at the end. Pure
 * (no IO); `digestLog` streams a file through it.
 *
 * Why it is fast: pieces are searched as bytes for every format's literal triggers (`TriggerFilter`,
 * vector instructions over the raw bytes); lines without a trigger are only counted, never decoded or
 * split out, unless a parser is inside a failure's report and asked to see every line. A line with a
 * trigger is read as a Latin-1 string (a byte per character), where the regular expressions of
 * `TriggerFinder` name its triggers; the triggers say which parsers get the line, so routing costs a
 * map lookup. Only lines some parser receives are decoded as UTF-8 and cleaned of ANSI escapes.
 * A line is its first `limits.lineBytes` bytes: the rest of a longer line is skipped.
 */
import type { Digest, DigestLimits, DigestOptions } from "./digest-types.ts";
import { defaultDigestLimits } from "./digest-types.ts";
import { detached, FailureCollector } from "./failure-collector.ts";
import type { FormatParser, NearbyLines } from "./format-parser.ts";
import { formatFactories } from "./formats.ts";
import { TriggerFilter } from "./trigger-filter.ts";
import { filterPadding } from "./trigger-filter-layout.ts";
import { TriggerFinder } from "./trigger-finder.ts";

/** A digest being built from a log fed in order. */
export interface DigestParser {
  /** The next piece of the log, as text or UTF-8 bytes; pieces may split lines and characters. */
  write(piece: string | Uint8Array): void;
  /**
   * Two buffers to read the log into: a piece that lies in one is scanned where it is, not copied.
   * They take turns, one filled while the other is written; a piece given as anything else is copied
   * into the first, so the two ways must not be mixed. Nothing may be read into them once `end` was
   * called: they are then the next parser's.
   */
  readonly readBuffers: readonly [Uint8Array, Uint8Array];
  /** Ends the log and returns its digest. Call once: `write` and `end` throw after it. */
  end(): Digest;
}

/** A parser for one log; see `DigestParser`. */
export function createDigestParser(options: DigestOptions = {}): DigestParser {
  return new LineScanner(options);
}

/**
 * Makes this process's searches (the byte filter's WebAssembly instance and tables, the finder's patterns,
 * compiled by V8 on their first use) and leaves them idle for the next parser: 5–12 ms of CPU in a fresh
 * process, paid on the way to the first gate's digest otherwise. For a process about to digest a log it
 * is waiting on (a gate's, while the gate runs). Once per process; later calls do nothing. Never throws.
 */
export function warmDigestSearches(): void {
  if (warmed) return;
  warmed = true;
  // A line with a trigger of the main and of the lower-case pattern, so that both are compiled.
  try {
    digestText("FAIL: warm\nerror: warm\n");
  } catch {
    // A digest that cannot be made now fails the same way for the gate's log, where it is reported.
  }
}
let warmed = false;

/** Every format's triggers as the byte filter searches them (Latin-1 text), in the order a parser asks. */
export function digestTriggers(): string[] {
  const collector = new FailureCollector(defaultDigestLimits);
  const nearby: NearbyLines = { before: () => "" };
  return routesOf(formatFactories.map((factory) => factory({ collector, nearby }))).keys;
}

/** The digest of a whole log held in memory. */
export function digestText(text: string, options: DigestOptions = {}): Digest {
  const parser = createDigestParser(options);
  parser.write(text);
  return parser.end();
}

/**
 * The most text scanned as one string while a parser is engaged (needs every line). Small windows keep
 * memory flat (a window still being scanned when V8 collects its young generation survives, and V8
 * grows the young generation once enough bytes have survived), and waste little when the engagement
 * ends early in the window: its rest is scanned as text, not skipped by the filter.
 */
const scanWindowBytes = 4 * 1024;
/** Bytes searched at a time: each read buffer's size; a piece is copied into the first in parts this size. */
export const chunkBytes = 1024 * 1024;
const nonAscii = /[\x80-\xff]/;
// CSI sequences (colors, cursor moves), OSC sequences (titles, links), character set selections and
// two-byte escapes.
const ansiEscape =
  // biome-ignore lint/suspicious/noControlCharactersInRegex: ANSI escapes start with the ESC control character.
  /\x1b\[[0-?]*[ -/]*[@-~]|\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)|\x1b[()][0-9A-Za-z]|\x1b[@-Z\\-_]/g;

/** A raw line (UTF-8 bytes as Latin-1) as parsers see it: decoded, without ANSI escapes or carriage returns. */
export function cleanLine(raw: string): string {
  let text = nonAscii.test(raw) ? Buffer.from(raw, "latin1").toString("utf8") : raw;
  if (text.includes("\x1b")) text = text.replace(ansiEscape, "");
  if (text.includes("\r")) {
    // A carriage return redraws the line (progress output): keep what was drawn last.
    const parts = text.split("\r").filter((part) => part.length > 0);
    text = parts.at(-1) ?? "";
  }
  return text;
}

/** The searches for one set of triggers: over the bytes (with the memory they are read into), and over text. */
interface Searches {
  filter: TriggerFilter;
  finder: TriggerFinder;
}

/**
 * Searches no parser uses, by their triggers (as JSON): a parser takes one pair when it starts and gives
 * it back when `end` returns, so a process that digests log after log (a controller: two gate logs per
 * iteration) makes the filter's 2 MiB WebAssembly memory, instance and tables and the finder's compiled
 * patterns once, not per log. A fresh WebAssembly memory per log cost ~0.5 ms, and a full garbage
 * collection every few logs in a controller (10 mark-compacts in a 25-iteration loop, 1 with reuse).
 * Parsers that run at the same time each have their own. A parser that never ends keeps its pair
 * (collected with it). What a parser reads in the memory is only what it wrote there itself, and the
 * finder starts afresh on each text (`begin`). An idle pair still holds up to 2 MiB of the last log it
 * read, not cleared, until a next parser overwrites it: text this process read and the loop keeps on
 * disk anyway (the gate's log).
 */
const idleSearches = new Map<string, Searches[]>();
/** Idle pairs kept per trigger set: as many as gates usually digest at once. */
const idleSearchesKept = 4;

/** The routes of each set of triggers (as `routesOf` makes them), by the triggers of each parser in order. */
const routesByTriggers = new Map<
  string,
  { routes: Map<string, number[]>; keys: string[]; searchesKey: string }
>();

/**
 * For each trigger of `parsers` (as Latin-1 text), the parsers it routes to: where two triggers match at
 * one place the longer wins, and it routes to the parsers of every trigger it contains, so each parser
 * gets what it asked for. Made once per set of triggers (each log's parsers ask the same): read only.
 */
function routesOf(parsers: readonly FormatParser[]): {
  routes: Map<string, number[]>;
  keys: string[];
  searchesKey: string;
} {
  const triggers = JSON.stringify(parsers.map((parser) => parser.triggers));
  const known = routesByTriggers.get(triggers);
  if (known) return known;
  const routes = new Map<string, number[]>();
  parsers.forEach((parser, index) => {
    for (const trigger of parser.triggers) {
      const key = Buffer.from(trigger, "utf8").toString("latin1");
      routes.set(key, [...(routes.get(key) ?? []), index]);
    }
  });
  const keys = [...routes.keys()];
  for (const key of keys) {
    const routed = new Set<number>();
    for (const other of keys)
      if (key.includes(other)) for (const index of routes.get(other) ?? []) routed.add(index);
    routes.set(key, [...routed]);
  }
  const made = { routes, keys, searchesKey: JSON.stringify(keys) };
  if (routesByTriggers.size >= 16) routesByTriggers.clear();
  routesByTriggers.set(triggers, made);
  return made;
}

class LineScanner implements DigestParser, NearbyLines {
  private readonly limits: DigestLimits;
  private readonly logPath: string | undefined;
  private readonly collector: FailureCollector;
  private readonly parsers: FormatParser[];
  private readonly finder: TriggerFinder;
  readonly readBuffers: readonly [Uint8Array, Uint8Array];
  /** The bytes being searched (the current chunk of the log) and the search over them. */
  private readonly filter: TriggerFilter;
  /** The triggers, as `idleSearches` files the filter and the finder. */
  private readonly searchesKey: string;
  /** `end` has returned: the filter and the finder are another parser's to use. */
  private ended = false;
  /** Where the chunk's whole lines start in the filter's memory (after the end of a line carried into it). */
  private chunkStart = 0;
  /** For each trigger (as its Latin-1 text), the parsers it routes to. */
  private readonly routes: Map<string, number[]>;
  /** The line number each parser last received, so that no parser gets a line twice. */
  private readonly given: number[];
  /** Parsers routed to by the triggers of the line being offered: the first `routedCount`. */
  private readonly routed: Int32Array;
  private routedCount = 0;
  /** The line number each parser was last routed to, so that the routed list holds no repeats. */
  private readonly routedAt: number[];
  /** Parsers that asked for every line, in offering order. */
  private engagedParsers: number[] = [];
  private lineNumber = 0;
  private engaged = false;
  /** The start of a line split across pieces, bounded by `limits.lineBytes`. */
  private carry: Buffer | null = null;
  /** The text being scanned and where the offered line starts in it, for `before`. */
  private text = "";
  private lineStart = 0;
  /** Where `text` starts in the filter's memory, or -1 for a copy (a line carried across chunks). */
  private textAddress = -1;
  /** Up to three raw lines before the current chunk's lines (or before a copied text), oldest first. */
  private tail: string[] = [];
  /** The parser that takes plain `=== RUN` lines in bulk (`FormatParser.runLines`), or null. */
  private readonly runTaker: FormatParser | null;
  /** Plain `=== RUN` lines not offered yet, and where the last one's name is: in `text`, or in memory. */
  private runCount = 0;
  private runNameStart = 0;
  private runNameEnd = 0;
  private runNameInMemory = false;

  constructor(options: DigestOptions) {
    this.limits = { ...defaultDigestLimits, ...options.limits };
    this.logPath = options.logPath;
    this.collector = new FailureCollector(this.limits, options.root);
    this.parsers = formatFactories.map((factory) => factory({ collector: this.collector, nearby: this }));
    this.given = this.parsers.map(() => 0);
    const { routes, keys, searchesKey } = routesOf(this.parsers);
    this.routes = routes;
    this.searchesKey = searchesKey;
    const searches = idleSearches.get(this.searchesKey)?.pop() ?? {
      filter: new TriggerFilter(keys, 2 * chunkBytes + filterPadding),
      finder: new TriggerFinder(keys),
    };
    this.finder = searches.finder;
    this.filter = searches.filter;
    // The two read buffers, each followed by the filter's padding.
    const memory = this.filter.bytes;
    const second = this.filter.start + chunkBytes + filterPadding;
    this.readBuffers = [
      memory.subarray(this.filter.start, this.filter.start + chunkBytes),
      memory.subarray(second, second + chunkBytes),
    ];
    // Counting plain run lines from the bytes needs `=== RUN` to be the longest trigger that starts one.
    const runIsLongest = !keys.some((key) => key !== runTrigger && key.startsWith(runTrigger));
    this.runTaker = runIsLongest ? runTaker(this.parsers, this.routes.get(runTrigger)) : null;
    this.routed = new Int32Array(this.parsers.length);
    this.routedAt = this.parsers.map(() => 0);
  }

  write(piece: string | Uint8Array): void {
    if (this.ended) throw new Error("the digest parser has ended");
    const filter = this.filter;
    if (typeof piece !== "string" && piece.buffer === filter.bytes.buffer) {
      // Read into one of `readBuffers`.
      if (
        piece.byteOffset < filter.start ||
        piece.byteOffset + piece.length > filter.start + filter.capacity
      ) {
        throw new Error("a piece in the parser's memory outside its read buffers");
      }
      this.scanChunk(piece.byteOffset, piece.byteOffset + piece.length);
      return;
    }
    const bytes = typeof piece === "string" ? Buffer.from(piece, "utf8") : piece;
    for (let offset = 0; offset < bytes.length; offset += chunkBytes) {
      const part = bytes.subarray(offset, offset + chunkBytes);
      filter.bytes.set(part, filter.start);
      this.scanChunk(filter.start, filter.start + part.length);
    }
  }

  end(): Digest {
    if (this.ended) throw new Error("the digest parser has ended");
    if (this.carry) {
      const line = this.carry;
      this.carry = null;
      this.scanCopied(`${line.toString("latin1")}\n`);
    }
    for (const parser of this.parsers) parser.end();
    const digest = this.collector.result(this.lineNumber, this.logPath);
    // The digest holds copies (strings) only: the filter's memory is free for the next parser.
    this.ended = true;
    const idle = idleSearches.get(this.searchesKey) ?? [];
    if (idle.length < idleSearchesKept) {
      this.filter.reset();
      idle.push({ filter: this.filter, finder: this.finder });
      idleSearches.set(this.searchesKey, idle);
    }
    return digest;
  }

  before(distance: number): string {
    const tail = this.tail;
    if (this.textAddress === -1) return cleanLine(tail[tail.length - distance] ?? "");
    const filter = this.filter;
    // The newline that ends the line above; lines of the chunk are in memory, those before in the tail.
    let end = this.textAddress + this.lineStart - 1;
    for (let step = 1; step <= distance; step++) {
      if (end < this.chunkStart) return cleanLine(tail[tail.length - 1 - (distance - step)] ?? "");
      const start = filter.newlineBefore(this.chunkStart, end) + 1 || this.chunkStart;
      if (step === distance) return cleanLine(this.lineText(start, end));
      end = start - 1;
    }
    return "";
  }

  /**
   * Scans the chunk at [start, end) of the filter's memory: the end of a line carried from the chunk
   * before, then line after line; the unfinished line at its end is carried into the next.
   */
  private scanChunk(start: number, end: number): void {
    const filter = this.filter;
    filter.reset();
    let position = start;
    if (this.carry) {
      const newline = filter.newlineAfter(start, end);
      if (newline === -1) {
        this.keep(filter.bytes.subarray(start, end));
        return;
      }
      this.keep(filter.bytes.subarray(start, newline));
      const line = this.carry;
      this.carry = null;
      this.scanCopied(`${line.toString("latin1")}\n`);
      position = newline + 1;
    }
    this.chunkStart = position;
    while (position < end) {
      if (this.engaged) {
        // A parser needs every line: scan windows of whole lines (see `scanWindowBytes`).
        const limit = Math.min(position + scanWindowBytes, end);
        const last = filter.newlineBefore(position, limit);
        if (last !== -1) {
          this.scanText(position, last + 1);
          position = last + 1;
          continue;
        }
        const next = filter.newlineAfter(limit, end);
        if (next === -1) break;
        this.scanLine(position, next);
        position = next + 1;
        continue;
      }
      // No parser needs every line: skip to the next line with a trigger, counting the lines before it.
      const trigger = filter.nextTrigger(position, end);
      if (trigger === -1) break;
      const lineEnd = filter.newlineAfter(trigger, end);
      if (lineEnd === -1) break;
      const lineStart = filter.newlineBefore(position, trigger) + 1 || position;
      this.lineNumber += filter.countNewlines(position, lineStart);
      if (!this.countedRunLine(lineStart, trigger, lineEnd)) this.scanLine(lineStart, lineEnd);
      position = lineEnd + 1;
    }
    // The lines left have no trigger, or the last one is unfinished.
    const last = filter.newlineBefore(position, end);
    if (last !== -1) {
      this.lineNumber += filter.countNewlines(position, last + 1);
      position = last + 1;
    }
    if (position < end) this.keep(filter.bytes.subarray(position, end));
    // Before the chunk's memory is reused.
    if (this.runCount > 0) this.giveRuns();
    this.keepChunkTail(position);
  }

  /** The line at [start, end) of the filter's memory (`end` at its newline), as a Latin-1 string. */
  private lineText(start: number, end: number): string {
    return this.filter.bytes.toString("latin1", start, Math.min(end, start + this.limits.lineBytes));
  }

  /** Scans the whole lines at [start, end) of the filter's memory. */
  private scanText(start: number, end: number): void {
    this.textAddress = start;
    this.scan(this.filter.bytes.toString("latin1", start, end));
  }

  /** Scans the line at [start, end) of the filter's memory, `end` at its newline. */
  private scanLine(start: number, end: number): void {
    if (end - start <= this.limits.lineBytes) this.scanText(start, end + 1);
    else {
      this.textAddress = start;
      this.scan(`${this.lineText(start, end)}\n`);
    }
  }

  /**
   * Counts the line at [start, end) of the filter's memory, whose first trigger is at `trigger`, when it
   * is a plain `=== RUN` line (see `runLines`) while no parser is engaged: the check `scan` makes, on
   * the bytes. False when the line must be scanned.
   */
  private countedRunLine(start: number, trigger: number, end: number): boolean {
    if (!this.runTaker || trigger !== start || end - start > this.limits.lineBytes) return false;
    const bytes = this.filter.bytes;
    for (let index = 0; index < runTrigger.length; index++) {
      if (bytes[start + index] !== runTrigger.charCodeAt(index)) return false;
    }
    const nameEnd = plainRunNameEndInBytes(bytes, start, end);
    if (nameEnd === -1 || this.filter.nextTrigger(start + runTrigger.length, end) !== -1) return false;
    this.runCount++;
    let nameStart = nameEnd;
    while (bytes[nameStart - 1] !== 32) nameStart--;
    this.runNameStart = nameStart;
    this.runNameEnd = nameEnd;
    this.runNameInMemory = true;
    this.lineNumber++;
    return true;
  }

  /** Keeps the last three lines before `end` in the chunk (after any in the tail already), as copies. */
  private keepChunkTail(end: number): void {
    const lines: string[] = [];
    let lineEnd = end - 1;
    while (lines.length < 3 && lineEnd >= this.chunkStart) {
      const start = this.filter.newlineBefore(this.chunkStart, lineEnd) + 1 || this.chunkStart;
      lines.unshift(this.lineText(start, lineEnd));
      lineEnd = start - 1;
    }
    if (lines.length > 0) this.tail = [...this.tail, ...lines].slice(-3);
  }

  /** Keeps the start of an unfinished line, up to `lineBytes`. */
  private keep(bytes: Buffer): void {
    const room = this.limits.lineBytes - (this.carry?.length ?? 0);
    if (room <= 0) return;
    const part = Buffer.from(bytes.subarray(0, room));
    this.carry = this.carry ? Buffer.concat([this.carry, part]) : part;
  }

  private scanCopied(text: string): void {
    this.textAddress = -1;
    this.scan(text);
    this.keepTail(text);
  }

  /** Scans whole lines: `text` ends with a newline. Call `keepTail` after. */
  private scan(text: string): void {
    this.text = text;
    const finder = this.finder;
    const length = text.length;
    // The finder's next trigger at or after `position`, searched for once: the search that looks for
    // another trigger on the same line also finds the next line worth offering.
    finder.begin(text);
    let position = 0;
    while (position < length) {
      let lineEnd: number;
      if (this.engaged) lineEnd = text.indexOf("\n", position);
      else {
        if (finder.start === -1) {
          this.lineNumber += countNewlines(text, position, length);
          break;
        }
        // Count the lines up to the trigger's; the first newline after it ends its line.
        lineEnd = text.indexOf("\n", position);
        while (lineEnd < finder.start) {
          this.lineNumber++;
          position = lineEnd + 1;
          lineEnd = text.indexOf("\n", position);
        }
      }
      const number = this.lineNumber + 1;
      this.routedCount = 0;
      // A plain `=== RUN   Name` line while no parser is engaged: counted, not offered (see `runLines`).
      if (!this.engaged && this.runTaker && finder.start === position && finder.trigger === runTrigger) {
        const nameEnd = plainRunNameEnd(text, position, lineEnd);
        finder.advance();
        if (nameEnd !== -1 && (finder.start === -1 || finder.start >= lineEnd)) {
          this.runCount++;
          this.runNameStart = nameEnd - nameLength(text, nameEnd);
          this.runNameEnd = nameEnd;
          this.runNameInMemory = false;
          this.lineNumber++;
          position = lineEnd + 1;
          continue;
        }
        this.routeTrigger(runTrigger, number);
      }
      while (finder.start !== -1 && finder.start < lineEnd) {
        this.routeTrigger(finder.trigger, number);
        finder.advance();
      }
      if (this.runCount > 0) this.giveRuns();
      this.offer(position, lineEnd);
      position = lineEnd + 1;
    }
    if (this.runCount > 0) this.giveRuns();
  }

  /** Adds the parsers `trigger` routes to to those the line `number` is offered to. */
  private routeTrigger(trigger: string, number: number): void {
    for (const index of this.routes.get(trigger) as number[]) {
      if (this.routedAt[index] === number) continue;
      this.routedAt[index] = number;
      this.routed[this.routedCount++] = index;
    }
  }

  /** Hands the counted `=== RUN` lines to their parser: before any other line is offered. */
  private giveRuns(): void {
    const count = this.runCount;
    this.runCount = 0;
    const name = this.runNameInMemory
      ? this.filter.bytes.toString("latin1", this.runNameStart, this.runNameEnd)
      : this.text.slice(this.runNameStart, this.runNameEnd);
    this.runTaker?.runLines?.(count, name);
  }

  private offer(start: number, end: number): void {
    this.lineStart = start;
    const raw = this.text.slice(start, end > start && this.text.charCodeAt(end - 1) === 13 ? end - 1 : end);
    const text = cleanLine(raw);
    const number = ++this.lineNumber;
    const parsers = this.parsers;
    const given = this.given;
    // A parser's engagement changes only when it gets a line: note whether any of those did.
    let changed = false;
    for (const index of this.engagedParsers) {
      given[index] = number;
      parsers[index].line(text, number);
      if (!parsers[index].engaged) changed = true;
    }
    for (let routed = 0; routed < this.routedCount; routed++) {
      const index = this.routed[routed];
      if (given[index] === number) continue;
      given[index] = number;
      parsers[index].line(text, number);
      if (parsers[index].engaged) changed = true;
    }
    if (changed) {
      const engaged: number[] = [];
      for (let index = 0; index < parsers.length; index++) if (parsers[index].engaged) engaged.push(index);
      this.engagedParsers = engaged;
      this.engaged = engaged.length > 0;
    }
  }

  /** Keeps the last three lines of a copied text for `before`. */
  private keepTail(text: string): void {
    let from = text.length - 1;
    for (let lines = 0; lines < 3 && from > 0; lines++) from = lineStartBefore(text, from) - 1;
    const lines = detached(text.slice(Math.max(from + 1, 0), text.length - 1)).split("\n");
    this.tail = [...this.tail, ...lines].slice(-3);
    this.lineStart = text.length;
  }
}

const runTrigger = "=== RUN";

/**
 * The parser that takes plain `=== RUN` lines in bulk: the one with `runLines` among the parsers the
 * trigger routes to, when every other one ignores such lines; else null (every line is offered).
 */
function runTaker(parsers: FormatParser[], routes: number[] | undefined): FormatParser | null {
  const takers = (routes ?? []).filter((index) => parsers[index].runLines);
  const others = (routes ?? []).filter((index) => !parsers[index].runLines);
  if (takers.length !== 1 || !others.every((index) => parsers[index].ignoresRunLines)) return null;
  return parsers[takers[0]];
}

/**
 * Where the name of the plain run line from `start` to `end` (`=== RUN`, spaces, then printable ASCII
 * up to the line's end, which cleaning leaves as it is) ends, or -1 when the line is not one.
 */
function plainRunNameEnd(text: string, start: number, end: number): number {
  let index = start + runTrigger.length;
  if (text.charCodeAt(index) !== 32) return -1;
  while (text.charCodeAt(index) === 32) index++;
  if (index >= end) return -1;
  for (; index < end; index++) {
    const code = text.charCodeAt(index);
    if (code <= 32 || code >= 127) return -1;
  }
  return end;
}

/** `plainRunNameEnd` over bytes. */
function plainRunNameEndInBytes(bytes: Uint8Array, start: number, end: number): number {
  let index = start + runTrigger.length;
  if (bytes[index] !== 32) return -1;
  while (bytes[index] === 32) index++;
  if (index >= end) return -1;
  for (; index < end; index++) {
    const code = bytes[index];
    if (code <= 32 || code >= 127) return -1;
  }
  return end;
}

/** The length of the run of non-space characters that ends at `end`. */
function nameLength(text: string, end: number): number {
  let start = end;
  while (text.charCodeAt(start - 1) !== 32) start--;
  return end - start;
}

/** Where the line holding `index` starts. */
function lineStartBefore(text: string, index: number): number {
  return index === 0 ? 0 : text.lastIndexOf("\n", index - 1) + 1;
}

function countNewlines(text: string, from: number, to: number): number {
  let count = 0;
  let index = text.indexOf("\n", from);
  while (index !== -1 && index < to) {
    count++;
    index = text.indexOf("\n", index + 1);
  }
  return count;
}
