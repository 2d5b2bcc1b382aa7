/**
 * Two views of source lines that keep every column in place: `code` (comments and the contents of
 * string literals blanked to spaces, the quotes kept) for finding markers that must be real code, and
 * `uncommented` (only comments blanked) for reading values such as test names and configuration
 * entries. Pure; a small lexer per language, good for the common cases rather than every corner.
 */

import type { Delimited, LanguageSyntax } from "./source-languages.ts";

/** One line in three views of the same length. */
export interface LexedLine {
  raw: string;
  code: string;
  uncommented: string;
}

/** Where the lexer is at the start of a line. */
export type LexState =
  | { kind: "code" }
  | { kind: "string"; delimiter: Delimited }
  | { kind: "comment"; delimiter: Delimited }
  | { kind: "line-block"; close: string };

const codeState: LexState = { kind: "code" };

interface LexResult {
  lines: LexedLine[];
  end: LexState;
  /** A block comment closed where none was open: the lines probably started inside one. */
  strayCloser: boolean;
  /** Line and column of the opener of the construct still open at the end, if any. */
  openedAt?: { line: number; column: number };
}

/**
 * Lexes `lines`, a contiguous run of a file (one side of a diff hunk), whose start state is unknown.
 * It reads them as starting in code unless that reading is implausible (a block comment closed that was
 * never opened, or a string or comment left open at the end whose opener looks like a closer), in which
 * case it reads them as starting inside that comment or string when that reading is consistent.
 */
export function lexRun(lines: readonly string[], syntax: LanguageSyntax): LexedLine[] {
  const fromCode = lex(lines, syntax, codeState);
  if (fromCode.strayCloser) {
    for (const delimiter of syntax.blockComments) {
      const inside = lex(lines, syntax, { kind: "comment", delimiter });
      if (!inside.strayCloser && inside.end.kind === "code") return inside.lines;
    }
    for (const block of syntax.lineBlockComments) {
      const inside = lex(lines, syntax, { kind: "line-block", close: block.close });
      if (!inside.strayCloser && inside.end.kind === "code") return inside.lines;
    }
    return fromCode.lines;
  }
  if (fromCode.end.kind !== "code" && fromCode.openedAt && looksLikeCloser(lines, fromCode.openedAt)) {
    const start = fromCode.end;
    const inside = lex(lines, syntax, start);
    if (!inside.strayCloser && inside.end.kind === "code") return inside.lines;
  }
  return fromCode.lines;
}

/**
 * An opener alone on its line (or ending a line of text) that does not follow a line ending in `:`,
 * `=`, `(`, `,` or `{` is more likely the closer of a docstring or comment that began above the run.
 */
function looksLikeCloser(lines: readonly string[], at: { line: number; column: number }): boolean {
  const line = lines[at.line];
  const before = line.slice(0, at.column).trim();
  const after = line
    .slice(at.column)
    .replace(/^("""|'''|`|\/\*|\*\/)/, "")
    .trim();
  if (after !== "" && after !== ")" && after !== ",") return false;
  if (before !== "") return !/[=(:,{[]$/.test(before);
  for (let index = at.line - 1; index >= 0; index--) {
    const previous = lines[index].trim();
    if (previous !== "") return !/[=(:,{[]$/.test(previous);
  }
  return false;
}

/** Lexes `lines` from `start`. */
export function lex(lines: readonly string[], syntax: LanguageSyntax, start: LexState): LexResult {
  let state = start;
  let strayCloser = false;
  let openedAt: LexResult["openedAt"];
  const result: LexedLine[] = [];
  const closesComment = syntax.blockComments.map((comment) => comment.close);
  for (const [lineIndex, raw] of lines.entries()) {
    const code: string[] = [];
    const uncommented: string[] = [];
    const keep = (text: string) => {
      code.push(text);
      uncommented.push(text);
    };
    const blankString = (text: string) => {
      code.push(" ".repeat(text.length));
      uncommented.push(text);
    };
    const blankComment = (text: string) => {
      const spaces = " ".repeat(text.length);
      code.push(spaces);
      uncommented.push(spaces);
    };
    let index = 0;
    if (state.kind === "line-block") {
      const closing = raw.startsWith(state.close);
      blankComment(raw);
      index = raw.length;
      if (closing) state = codeState;
    } else if (state.kind === "code") {
      const opener = syntax.lineBlockComments.find((block) => raw.startsWith(block.open));
      if (opener) {
        blankComment(raw);
        index = raw.length;
        state = { kind: "line-block", close: opener.close };
        openedAt = { line: lineIndex, column: 0 };
      } else if (syntax.lineBlockComments.some((block) => raw.startsWith(block.close))) {
        strayCloser = true;
      }
    }
    while (index < raw.length) {
      if (state.kind === "string" || state.kind === "comment") {
        const delimiter = state.delimiter;
        if (delimiter.escapes && raw[index] === "\\") {
          const text = raw.slice(index, index + 2);
          if (state.kind === "string") blankString(text);
          else blankComment(text);
          index += text.length;
        } else if (raw.startsWith(delimiter.close, index)) {
          if (state.kind === "string") keep(delimiter.close);
          else blankComment(delimiter.close);
          index += delimiter.close.length;
          state = codeState;
        } else {
          if (state.kind === "string") blankString(raw[index]);
          else blankComment(raw[index]);
          index++;
        }
        continue;
      }
      if (state.kind === "line-block") break;
      const lineComment = syntax.lineComments.find(
        (marker) =>
          raw.startsWith(marker, index) &&
          (!syntax.lineCommentNeedsSpace || index === 0 || /\s/.test(raw[index - 1])),
      );
      if (lineComment) {
        blankComment(raw.slice(index));
        index = raw.length;
        break;
      }
      const block = syntax.blockComments.find((comment) => raw.startsWith(comment.open, index));
      if (block) {
        blankComment(block.open);
        index += block.open.length;
        state = { kind: "comment", delimiter: block };
        openedAt = { line: lineIndex, column: index - block.open.length };
        continue;
      }
      const closer = closesComment.find((close) => raw.startsWith(close, index));
      if (closer) {
        strayCloser = true;
        keep(closer);
        index += closer.length;
        continue;
      }
      if (syntax.characterLiterals && raw[index] === "'") {
        const literal = /^'(?:\\.[^']{0,8}|[^\\'])'/.exec(raw.slice(index));
        if (literal) {
          keep("'");
          blankString(literal[0].slice(1, -1));
          keep("'");
          index += literal[0].length;
        } else {
          keep("'"); // a Rust lifetime or label
          index++;
        }
        continue;
      }
      const string = syntax.strings.find(
        (candidate) =>
          raw.startsWith(candidate.open, index) &&
          // A raw-string prefix such as Rust's `r"` must not be the end of an identifier.
          (!/^[a-z]/i.test(candidate.open) || index === 0 || !/[\w]/.test(raw[index - 1])),
      );
      if (string) {
        keep(string.open);
        index += string.open.length;
        state = { kind: "string", delimiter: string };
        openedAt = { line: lineIndex, column: index - string.open.length };
        continue;
      }
      keep(raw[index]);
      index++;
    }
    if (state.kind === "string" && !state.delimiter.multiline) state = codeState;
    if (state.kind === "comment" && !state.delimiter.multiline) state = codeState;
    result.push({ raw, code: code.join(""), uncommented: uncommented.join("") });
  }
  return { lines: result, end: state, strayCloser, openedAt: state.kind === "code" ? undefined : openedAt };
}
