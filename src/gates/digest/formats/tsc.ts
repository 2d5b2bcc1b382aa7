/**
 * The TypeScript compiler: `file(line,col): error TS1234: message` (plain, when not on a terminal)
 * or `file:line:col - error TS1234: message` (--pretty) with indented continuation lines, code frames
 * and related locations. Each error is one failure named `TS1234: message`.
 */
import type { FailureDraft } from "../failure-collector.ts";
import { type FormatContext, type FormatFactory, type FormatParser, indentation } from "../format-parser.ts";

const plainLine = /^(.+?)\((\d+),(\d+)\): error (TS\d+): (.*)$/;
const prettyLine = /^(.+?):(\d+):(\d+) - error (TS\d+): (.*)$/;
const codeFrameLine = /^\s*\d+\s|^\s*~+\s*$/;
const relatedLine = /^\s+\S+:\d+:\d+ - /;

export const tsc: FormatFactory = (context) => new TscParser(context);

class TscParser implements FormatParser {
  readonly runner = "tsc";
  readonly triggers = ["TS1", "TS2", "TS3", "TS4", "TS5", "TS6", "TS7", "TS8", "TS9"];
  engaged = false;
  private readonly context: FormatContext;
  private draft: FailureDraft | null = null;
  private pretty = false;
  private blockLines = 0;

  constructor(context: FormatContext) {
    this.context = context;
  }

  line(text: string, lineNumber: number): void {
    if (this.draft) {
      if (this.detail(text)) return;
      this.finish();
    }
    const plain = plainLine.exec(text);
    const pretty = plain ? null : prettyLine.exec(text);
    const error = plain ?? pretty;
    if (!error) return;
    const [, file, line, column, code, message] = error;
    const collector = this.context.collector;
    this.draft = collector.draft(
      this.runner,
      `${code}: ${message}`,
      lineNumber,
      `${file}:${line}:${column}:${code}`,
    );
    collector.anchor(this.draft, file, Number(line));
    this.pretty = pretty !== null;
    this.blockLines = 0;
    this.engaged = true;
  }

  end(): void {
    this.finish();
  }

  /** Reads one line after an error; false when the line is not part of it. */
  private detail(text: string): boolean {
    const collector = this.context.collector;
    const draft = this.draft as FailureDraft;
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

  private finish(): void {
    if (this.draft) this.context.collector.commit(this.draft);
    this.draft = null;
    this.engaged = false;
  }
}
