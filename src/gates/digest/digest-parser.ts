/**
 * The incremental digest parser: feed it a log in pieces of any size, get a `Digest` at the end. Pure
 * (no IO); `digestLog` streams a file through it.
 *
 * Why it is fast: pieces are scanned as Latin-1 strings (a byte per character, decoded at memory
 * speed) by one regular expression that unites every format's literal triggers. Lines without a
 * trigger are only counted, never decoded or split out, unless a parser is inside a failure's report
 * and asked to see every line. The trigger that matched says which parsers get the line, so routing
 * costs a map lookup. Only lines some parser receives are decoded as UTF-8 and cleaned of ANSI escapes.
 */
import type { Digest, DigestLimits, DigestOptions } from "./digest-types.ts";
import { defaultDigestLimits } from "./digest-types.ts";
import { FailureCollector } from "./failure-collector.ts";
import type { FormatParser, NearbyLines } from "./format-parser.ts";
import { formatFactories } from "./formats.ts";

/** A digest being built from a log fed in order. */
export interface DigestParser {
  /** The next piece of the log, as text or UTF-8 bytes; pieces may split lines and characters. */
  write(piece: string | Uint8Array): void;
  /** Ends the log and returns its digest. Call once. */
  end(): Digest;
}

/** A parser for one log; see `DigestParser`. */
export function createDigestParser(options: DigestOptions = {}): DigestParser {
  return new LineScanner(options);
}

/** The digest of a whole log held in memory. */
export function digestText(text: string, options: DigestOptions = {}): Digest {
  const parser = createDigestParser(options);
  parser.write(text);
  return parser.end();
}

/** The most text scanned as one string. */
const scanWindowBytes = 64 * 1024;
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

class LineScanner implements DigestParser, NearbyLines {
  private readonly limits: DigestLimits;
  private readonly logPath: string | undefined;
  private readonly collector: FailureCollector;
  private readonly parsers: FormatParser[];
  private readonly triggers: RegExp;
  /** For each trigger (as its Latin-1 text), the parsers it routes to. */
  private readonly routes: Map<string, number[]>;
  /** The line number each parser last received, so that no parser gets a line twice. */
  private readonly given: number[];
  /** Parsers routed to by the triggers of the line being offered (may repeat). */
  private readonly routed: number[] = [];
  private lineNumber = 0;
  private engaged = false;
  /** The start of a line split across pieces, bounded by `limits.lineBytes`. */
  private carry: Buffer | null = null;
  /** The text being scanned and where the offered line starts in it, for `before`. */
  private text = "";
  private lineStart = 0;
  /** Up to three raw lines that ended the previously scanned text, oldest first. */
  private tail: string[] = [];

  constructor(options: DigestOptions) {
    this.limits = { ...defaultDigestLimits, ...options.limits };
    this.logPath = options.logPath;
    this.collector = new FailureCollector(this.limits, options.root);
    this.parsers = formatFactories.map((factory) => factory({ collector: this.collector, nearby: this }));
    this.given = this.parsers.map(() => 0);
    this.routes = new Map();
    this.parsers.forEach((parser, index) => {
      for (const trigger of parser.triggers) {
        const key = Buffer.from(trigger, "utf8").toString("latin1");
        this.routes.set(key, [...(this.routes.get(key) ?? []), index]);
      }
    });
    // Longer triggers first: where two match at one place the longer wins, and it routes to the
    // parsers of every trigger it starts with (see below), so each parser gets what it asked for.
    const keys = [...this.routes.keys()].sort((left, right) => right.length - left.length);
    for (const key of keys) {
      for (const shorter of keys) {
        if (shorter.length < key.length && key.startsWith(shorter))
          this.routes.set(key, [
            ...new Set([...(this.routes.get(key) ?? []), ...(this.routes.get(shorter) ?? [])]),
          ]);
      }
    }
    this.triggers = new RegExp(keys.map(latin1Literal).join("|"), "g");
  }

  write(piece: string | Uint8Array): void {
    const bytes =
      typeof piece === "string"
        ? Buffer.from(piece, "utf8")
        : Buffer.from(piece.buffer, piece.byteOffset, piece.byteLength);
    let start = 0;
    if (this.carry) {
      const newline = bytes.indexOf(10);
      if (newline === -1) {
        this.keep(bytes);
        return;
      }
      this.keep(bytes.subarray(0, newline));
      const line = this.carry;
      this.carry = null;
      this.scan(`${line.toString("latin1")}\n`);
      start = newline + 1;
    }
    // Scan in windows of whole lines: small strings stay in V8's young generation, which is cheap to
    // collect; one huge string per piece would pile up in the large-object space.
    while (start < bytes.length) {
      const limit = Math.min(start + scanWindowBytes, bytes.length);
      const last = bytes.lastIndexOf(10, limit - 1);
      if (last >= start) {
        this.scan(bytes.toString("latin1", start, last + 1));
        start = last + 1;
        continue;
      }
      const next = bytes.indexOf(10, limit);
      if (next === -1) {
        this.keep(bytes.subarray(start));
        break;
      }
      // A line longer than the window: only its first `lineBytes` are looked at.
      this.scan(`${bytes.toString("latin1", start, Math.min(next, start + this.limits.lineBytes))}\n`);
      start = next + 1;
    }
  }

  end(): Digest {
    if (this.carry) {
      const line = this.carry;
      this.carry = null;
      this.scan(`${line.toString("latin1")}\n`);
    }
    for (const parser of this.parsers) parser.end();
    return this.collector.result(this.lineNumber, this.logPath);
  }

  before(distance: number): string {
    let end = this.lineStart - 1;
    for (let step = 1; step <= distance; step++) {
      if (end < 0) return cleanLine(this.tail[this.tail.length - 1 - (distance - step)] ?? "");
      const start = lineStartBefore(this.text, end);
      if (step === distance) return cleanLine(this.text.slice(start, end));
      end = start - 1;
    }
    return "";
  }

  /** Keeps the start of an unfinished line, up to `lineBytes`. */
  private keep(bytes: Buffer): void {
    const room = this.limits.lineBytes - (this.carry?.length ?? 0);
    if (room <= 0) return;
    const part = Buffer.from(bytes.subarray(0, room));
    this.carry = this.carry ? Buffer.concat([this.carry, part]) : part;
  }

  /** Scans whole lines: `text` ends with a newline. */
  private scan(text: string): void {
    this.text = text;
    const triggers = this.triggers;
    const length = text.length;
    let position = 0;
    triggers.lastIndex = 0;
    // The next trigger at or after `position`, searched for once: the search that looks for another
    // trigger on the same line also finds the next line worth offering.
    let match = triggers.exec(text);
    while (position < length) {
      if (!this.engaged) {
        if (!match) {
          this.lineNumber += countNewlines(text, position, length);
          break;
        }
        const lineStart = lineStartBefore(text, match.index);
        this.lineNumber += countNewlines(text, position, lineStart);
        position = lineStart;
      }
      const lineEnd = text.indexOf("\n", position);
      const routed = this.routed;
      routed.length = 0;
      while (match && match.index < lineEnd) {
        for (const index of this.routes.get(match[0]) as number[]) routed.push(index);
        match = triggers.exec(text);
      }
      this.offer(position, lineEnd);
      position = lineEnd + 1;
    }
    this.keepTail(text);
  }

  private offer(start: number, end: number): void {
    this.lineStart = start;
    const raw = this.text.slice(start, end > start && this.text.charCodeAt(end - 1) === 13 ? end - 1 : end);
    const text = cleanLine(raw);
    const number = ++this.lineNumber;
    const parsers = this.parsers;
    const given = this.given;
    for (let index = 0; index < parsers.length; index++) {
      if (!parsers[index].engaged) continue;
      given[index] = number;
      parsers[index].line(text, number);
    }
    for (const index of this.routed) {
      if (given[index] === number) continue;
      given[index] = number;
      parsers[index].line(text, number);
    }
    let engaged = false;
    for (let index = 0; index < parsers.length && !engaged; index++) engaged = parsers[index].engaged;
    this.engaged = engaged;
  }

  private keepTail(text: string): void {
    const lines: string[] = [];
    let end = text.length - 1;
    while (lines.length < 3 && end >= 0) {
      const start = lineStartBefore(text, end);
      lines.unshift(text.slice(start, end));
      end = start - 1;
    }
    this.tail = [...this.tail, ...lines].slice(-3);
    this.lineStart = text.length;
  }
}

/** A regular-expression source matching `text` (one character per byte) exactly. */
function latin1Literal(text: string): string {
  let source = "";
  for (let index = 0; index < text.length; index++) {
    const code = text.charCodeAt(index);
    const character = text[index];
    if (code >= 0x80 || code < 0x20) source += `\\x${code.toString(16).padStart(2, "0")}`;
    else if (/[\\^$.*+?()[\]{}|/-]/.test(character)) source += `\\${character}`;
    else source += character;
  }
  return source;
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
