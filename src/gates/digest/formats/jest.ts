/**
 * Jest's default reporter: `● suite › test` headers (indented two spaces) under the `FAIL file` line
 * of their test file, then the error, diff, code frame and `at` frames indented four spaces or more.
 */
import type { FailureDraft } from "../failure-collector.ts";
import { type FormatContext, type FormatFactory, type FormatParser, indentation } from "../format-parser.ts";

const fileLine = /^\s*FAIL\s+(\S.*?)(?:\s+\(\d[\d.]*\s*m?s\))?\s*$/;
const headerLine = /^ {2}● (.+)$/;
const frameLine = /^\s+at /;
const codeFrameLine = /^\s+>?\s*\d*\s*\|/;
const countLine = /^Tests:\s+(.*)$/;

export const jest: FormatFactory = (context) => new JestParser(context);

class JestParser implements FormatParser {
  readonly runner = "jest";
  readonly triggers = ["●", "FAIL", "Tests"];
  engaged = false;
  private readonly context: FormatContext;
  private file = "";
  private draft: FailureDraft | null = null;
  private sawFrame = false;
  private blockLines = 0;

  constructor(context: FormatContext) {
    this.context = context;
  }

  line(text: string, lineNumber: number): void {
    if (this.draft) {
      if (this.detail(text)) return;
      this.finish();
    }
    const header = headerLine.exec(text);
    if (header) {
      const title = header[1].trim();
      if (title === "Console" || title.startsWith("Console ")) return;
      const name = title.split(" › ").join(" > ");
      const collector = this.context.collector;
      const fullName = name === "Test suite failed to run" && this.file ? `${this.file} > ${name}` : name;
      this.draft = collector.draft(this.runner, fullName, lineNumber, `${this.file}\u0000${name}`);
      this.sawFrame = false;
      this.blockLines = 0;
      this.engaged = true;
      return;
    }
    const file = fileLine.exec(text);
    if (file && !file[1].includes(" > ")) {
      this.file = file[1];
      return;
    }
    const count = countLine.exec(text);
    if (count) {
      const failed = /(\d+) failed/.exec(count[1]);
      const passed = /(\d+) passed/.exec(count[1]);
      if (failed || passed)
        this.context.collector.countTests(this.runner, Number(failed?.[1] ?? 0) + Number(passed?.[1] ?? 0));
    }
  }

  end(): void {
    this.finish();
  }

  /** Reads one line of a failure's report; false when the line is not part of it. */
  private detail(text: string): boolean {
    if (text.trim() && indentation(text) < 4) return false;
    const collector = this.context.collector;
    const draft = this.draft as FailureDraft;
    if (++this.blockLines > collector.limits.blockLines) {
      this.finish();
      return true;
    }
    if (frameLine.test(text)) {
      this.sawFrame = true;
      collector.frame(draft, text);
    } else if (!this.sawFrame && !codeFrameLine.test(text)) collector.message(draft, text.slice(4));
    return true;
  }

  private finish(): void {
    if (this.draft) this.context.collector.commit(this.draft);
    this.draft = null;
    this.engaged = false;
  }
}
