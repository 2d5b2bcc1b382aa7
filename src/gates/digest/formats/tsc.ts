/**
 * The TypeScript compiler: `file(line,col): error TS1234: message` (plain, when not on a terminal)
 * or `file:line:col - error TS1234: message` (--pretty) with indented continuation lines, code frames
 * and related locations. Each error is one failure named `TS1234: message`.
 */
import { DraftParser } from "../draft-parser.ts";
import type { FailureDraft } from "../failure-collector.ts";
import { type FormatFactory, indentation } from "../format-parser.ts";

const plainLine = /^(.+?)\((\d+),(\d+)\): error (TS\d+): (.*)$/;
const prettyLine = /^(.+?):(\d+):(\d+) - error (TS\d+): (.*)$/;
const codeFrameLine = /^\s*\d+\s|^\s*~+\s*$/;
const relatedLine = /^\s+\S+:\d+:\d+ - /;

export const tsc: FormatFactory = (context) => new TscParser(context);

class TscParser extends DraftParser {
  readonly runner = "tsc";
  readonly triggers = ["TS1", "TS2", "TS3", "TS4", "TS5", "TS6", "TS7", "TS8", "TS9"];
  private pretty = false;

  protected scan(text: string, lineNumber: number): void {
    const plain = plainLine.exec(text);
    const pretty = plain ? null : prettyLine.exec(text);
    const error = plain ?? pretty;
    if (!error) return;
    const [, file, line, column, code, message] = error;
    const draft = this.start(`${code}: ${message}`, lineNumber, `${file}:${line}:${column}:${code}`);
    this.collector.anchor(draft, file, Number(line));
    this.pretty = pretty !== null;
  }

  /** Reads one line after an error; false when the line is not part of it. */
  protected detail(text: string, draft: FailureDraft): boolean {
    const collector = this.collector;
    if (++this.blockLines > 40) return false;
    if (!this.pretty) {
      if (!text.trim() || indentation(text) === 0) return false;
      collector.message(draft, text);
      return true;
    }
    if (text.trim() && indentation(text) === 0 && !codeFrameLine.test(text)) return false;
    if (relatedLine.test(text)) {
      collector.anchorsIn(draft, text);
      collector.message(draft, text);
    } else if (text.trim() && !codeFrameLine.test(text)) collector.message(draft, text);
    return true;
  }
}
