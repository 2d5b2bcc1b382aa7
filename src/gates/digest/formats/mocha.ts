/**
 * Mocha's spec reporter: after `N failing`, N numbered failures whose title runs over several indented
 * lines (one per suite) and ends with a colon, then the error, diff and `at` frames. The parser reads
 * every line of that section, which ends after the N-th failure's frames.
 */
import type { FailureDraft } from "../failure-collector.ts";
import { type FormatContext, type FormatFactory, type FormatParser, indentation } from "../format-parser.ts";

const headerLine = /^ {2}\d+\) (.*)$/;
const passingLine = /^\s+(\d+) passing\b/;
const failingLine = /^\s+(\d+) failing\s*$/;
const frameLine = /^\s+at /;

export const mocha: FormatFactory = (context) => new MochaParser(context);

class MochaParser implements FormatParser {
  readonly runner = "mocha";
  readonly triggers = ["passing", "failing"];
  engaged = false;
  private readonly context: FormatContext;
  /** Failures announced by `N failing` and not read yet. */
  private remaining = 0;
  private draft: FailureDraft | null = null;
  private titleParts: string[] = [];
  private titleDone = false;
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
    const collector = this.context.collector;
    const header = this.remaining > 0 ? headerLine.exec(text) : null;
    if (header) {
      this.remaining--;
      this.draft = collector.draft(this.runner, "", lineNumber);
      this.titleParts = [];
      this.titleDone = false;
      this.addTitle(header[1]);
      this.sawFrame = false;
      this.blockLines = 0;
      return;
    }
    const passing = passingLine.exec(text);
    if (passing) {
      collector.countTests(this.runner, Number(passing[1]));
      return;
    }
    const failing = failingLine.exec(text);
    if (failing) {
      collector.countTests(this.runner, Number(failing[1]));
      this.remaining = Number(failing[1]);
      this.engaged = this.remaining > 0;
    }
  }

  end(): void {
    this.finish();
  }

  private addTitle(part: string): void {
    const trimmed = part.trim();
    this.titleDone = trimmed.endsWith(":");
    this.titleParts.push(this.titleDone ? trimmed.slice(0, -1) : trimmed);
  }

  /** Reads one line of a failure's report; false when the line is not part of it. */
  private detail(text: string): boolean {
    if (headerLine.test(text)) return false;
    const collector = this.context.collector;
    const draft = this.draft as FailureDraft;
    if (++this.blockLines > collector.limits.blockLines) {
      this.finish();
      return true;
    }
    if (!this.titleDone) {
      if (text.trim() && indentation(text) > 2) {
        this.addTitle(text);
        return true;
      }
      this.titleDone = true;
    }
    if (frameLine.test(text)) {
      this.sawFrame = true;
      collector.frame(draft, text);
    } else if (this.sawFrame) {
      if (!text.trim()) this.finish();
    } else collector.message(draft, text);
    return true;
  }

  private finish(): void {
    const draft = this.draft;
    if (draft) {
      this.context.collector.rename(draft, this.titleParts.join(" > "));
      this.context.collector.commit(draft);
    }
    this.draft = null;
    this.engaged = this.remaining > 0;
  }
}
