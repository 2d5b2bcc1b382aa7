/**
 * Mocha's spec reporter: after `N failing`, N numbered failures whose title runs over several indented
 * lines (one per suite) and ends with a colon, then the error, diff and `at` frames. The parser reads
 * every line of that section, which ends after the N-th failure's frames.
 */
import { DraftParser } from "../draft-parser.ts";
import type { FailureDraft } from "../failure-collector.ts";
import { type FormatFactory, indentation } from "../format-parser.ts";

const headerLine = /^ {2}\d+\) (.*)$/;
const passingLine = /^\s+(\d+) passing\b/;
const failingLine = /^\s+(\d+) failing\s*$/;
const frameLine = /^\s+at /;

export const mocha: FormatFactory = (context) => new MochaParser(context);

class MochaParser extends DraftParser {
  readonly runner = "mocha";
  readonly triggers = ["passing", "failing"];
  /** Failures announced by `N failing` and not read yet. */
  private remaining = 0;
  private titleParts: string[] = [];
  private titleDone = false;

  protected scan(text: string, lineNumber: number): void {
    const collector = this.collector;
    const header = this.remaining > 0 ? headerLine.exec(text) : null;
    if (header) {
      this.remaining--;
      this.start("", lineNumber);
      this.titleParts = [];
      this.titleDone = false;
      this.addTitle(header[1]);
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

  private addTitle(part: string): void {
    const trimmed = part.trim();
    this.titleDone = trimmed.endsWith(":");
    this.titleParts.push(this.titleDone ? trimmed.slice(0, -1) : trimmed);
  }

  /** Reads one line of a failure's report; false when the line is not part of it. */
  protected detail(text: string, draft: FailureDraft): boolean {
    if (headerLine.test(text)) return false;
    if (this.blockFull()) return true;
    if (!this.titleDone) {
      if (text.trim() && indentation(text) > 2) {
        this.addTitle(text);
        return true;
      }
      this.titleDone = true;
    }
    if (frameLine.test(text)) this.frame(draft, text);
    else if (this.sawFrame) {
      if (!text.trim()) this.finish();
    } else this.collector.message(draft, text);
    return true;
  }

  /** Names the draft by its title's parts; still reads every line while failures remain. */
  protected finish(): void {
    if (this.draft) this.collector.rename(this.draft, this.titleParts.join(" > "));
    super.finish();
    this.engaged = this.remaining > 0;
  }
}
