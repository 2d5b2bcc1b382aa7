/**
 * The contract between the digest's line scanner and the parser of one runner's output format.
 *
 * The scanner does not hand every line to every parser: that would be too slow for logs of gigabytes.
 * A parser names its triggers; a line reaches it when it contains one of them, or while the parser says
 * it is `engaged` (inside a failure's report, where it needs every line). A parser gets each line at
 * most once, verifies it with its own patterns, and decides itself when a line ends its block.
 */
import type { RunnerName } from "./digest-types.ts";
import type { FailureCollector } from "./failure-collector.ts";

/** Lines near the one being offered, for formats whose context comes before the line that names them. */
export interface NearbyLines {
  /** The line `distance` (1 to 3) lines above the current one, cleaned like offered lines; "" if unknown. */
  before(distance: number): string;
}

/** What a parser is built with. */
export interface FormatContext {
  collector: FailureCollector;
  nearby: NearbyLines;
}

export interface FormatParser {
  readonly runner: RunnerName;
  /**
   * Literal text; a line that contains one reaches the parser. All parsers' triggers are searched for
   * in every byte of the log, so keep them few, and prefer ones that start with a rare character
   * (an upper-case word, a symbol) and seldom occur in passing output. Color escapes can sit around
   * words, so a trigger is best a single word or symbol rather than a phrase with its indentation.
   */
  readonly triggers: readonly string[];
  /** True while the parser needs every line, not only those that match a trigger. */
  readonly engaged: boolean;
  /** One line: UTF-8 decoded, ANSI escapes removed, without its line ending. `lineNumber` is 1-based. */
  line(text: string, lineNumber: number): void;
  /** The log ended: commit or discard what is still open. */
  end(): void;
  /**
   * Optional, for go's verbose output, where `=== RUN   Name` is most of the lines parsers get: while
   * no parser is engaged, a plain ASCII line `=== RUN` + spaces + a name and nothing else, with no other
   * trigger on it, is not offered. The scanner counts such lines and, before the next line any parser is
   * offered (and at the end of each scanned window), calls this with their count and the last one's
   * name. It must leave the parser as `count` calls of `line` with those lines would have.
   */
  runLines?(count: number, lastName: string): void;
  /**
   * True when such a line (see `runLines`) changes nothing in this parser while it is not engaged, so
   * it need not be offered; the scanner takes the bulk path only when every other parser the line
   * reaches says so.
   */
  readonly ignoresRunLines?: boolean;
}

export type FormatFactory = (context: FormatContext) => FormatParser;

/** The number of leading spaces (a tab counts as one). */
export function indentation(text: string): number {
  let count = 0;
  while (count < text.length && (text.charCodeAt(count) === 32 || text.charCodeAt(count) === 9)) count++;
  return count;
}

/** The tests `N passed` and `N failed` in a runner's count line add up to, or null when it names neither. */
export function passedAndFailed(counts: string): number | null {
  const failed = /(\d+) failed/.exec(counts);
  const passed = /(\d+) passed/.exec(counts);
  if (!failed && !passed) return null;
  return Number(failed?.[1] ?? 0) + Number(passed?.[1] ?? 0);
}
