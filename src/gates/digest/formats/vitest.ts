/**
 * Vitest's default reporter: each failure of the `Failed Tests` section starts with
 * ` FAIL  file > suite > test`, then the error and diff, then `❯ file:line:col` frames with code frames.
 */
import type { FailureDraft } from "../failure-collector.ts";
import type { FormatContext, FormatFactory, FormatParser } from "../format-parser.ts";

// ` FAIL  file > suite > test`, or ` FAIL  file [ file ]` for a file that failed to load; not jest's ` FAIL  file`.
const headerLine = /^ FAIL {1,2}(?:\|[^|]+\| )?(.+? > .+?|.+? \[ .+ \])\s*$/;
const separatorLine = /^⎯{3,}/;
const frameLine = /^\s*(?:❯|at) (.*)$/;
const codeFrameLine = /^\s+(?:\d+)?\s*\|/;
const countLine = /^\s*Tests\s+(.*?)\s*\(\d+\)\s*$/;
const summaryLine = /^\s*Test Files\s/;

export const vitest: FormatFactory = (context) => new VitestParser(context);

class VitestParser implements FormatParser {
  readonly runner = "vitest";
  readonly triggers = ["FAIL", "Tests"];
  engaged = false;
  private readonly context: FormatContext;
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
      this.start(header[1], lineNumber);
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

  private start(title: string, lineNumber: number): void {
    const parts = title.split(" > ");
    const file = parts[0];
    const name = parts.length > 1 ? parts.slice(1).join(" > ") : title;
    this.draft = this.context.collector.draft(this.runner, name, lineNumber, `${file}\u0000${name}`);
    this.sawFrame = false;
    this.blockLines = 0;
    this.engaged = true;
  }

  /** Reads one line of a failure's report; false when the line is not part of it. */
  private detail(text: string): boolean {
    if (separatorLine.test(text)) {
      this.finish();
      return true;
    }
    if (headerLine.test(text) || summaryLine.test(text)) return false;
    const collector = this.context.collector;
    const draft = this.draft as FailureDraft;
    if (++this.blockLines > collector.limits.blockLines) {
      this.finish();
      return true;
    }
    const frame = frameLine.exec(text);
    if (frame) {
      this.sawFrame = true;
      collector.frame(draft, frame[1]);
    } else if (!this.sawFrame && !codeFrameLine.test(text)) collector.message(draft, text);
    return true;
  }

  private finish(): void {
    if (this.draft) this.context.collector.commit(this.draft);
    this.draft = null;
    this.engaged = false;
  }
}
