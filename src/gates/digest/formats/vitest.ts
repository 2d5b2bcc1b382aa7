/**
 * Vitest's default reporter: each failure of the `Failed Tests` section starts with
 * ` FAIL  file > suite > test`, then the error and diff, then `❯ file:line:col` frames with code frames.
 */
import { DraftParser } from "../draft-parser.ts";
import type { FailureDraft } from "../failure-collector.ts";
import { type FormatFactory, passedAndFailed } from "../format-parser.ts";

// ` FAIL  file > suite > test`, or ` FAIL  file [ file ]` for a file that failed to load; not jest's ` FAIL  file`.
const headerLine = /^ FAIL {1,2}(?:\|[^|]+\| )?(.+? > .+?|.+? \[ .+ \])\s*$/;
const separatorLine = /^⎯{3,}/;
const frameLine = /^\s*(?:❯|at) (.*)$/;
const codeFrameLine = /^\s+(?:\d+)?\s*\|/;
const countLine = /^\s*Tests\s+(.*?)\s*\(\d+\)\s*$/;
const summaryLine = /^\s*Test Files\s/;

export const vitest: FormatFactory = (context) => new VitestParser(context);

class VitestParser extends DraftParser {
  readonly runner = "vitest";
  readonly triggers = ["FAIL", "Tests"];

  protected scan(text: string, lineNumber: number): void {
    const header = headerLine.exec(text);
    if (header) {
      // `file > suite > test`: the name leaves out the file, the key keeps it.
      const parts = header[1].split(" > ");
      const name = parts.length > 1 ? parts.slice(1).join(" > ") : header[1];
      this.start(name, lineNumber, `${parts[0]}\u0000${name}`);
      return;
    }
    const count = countLine.exec(text);
    const executed = count ? passedAndFailed(count[1]) : null;
    if (executed !== null) this.collector.countTests(this.runner, executed);
  }

  /** Reads one line of a failure's report; false when the line is not part of it. */
  protected detail(text: string, draft: FailureDraft): boolean {
    if (separatorLine.test(text)) {
      this.finish();
      return true;
    }
    if (headerLine.test(text) || summaryLine.test(text)) return false;
    if (this.blockFull()) return true;
    const frame = frameLine.exec(text);
    if (frame) this.frame(draft, frame[1]);
    else if (!this.sawFrame && !codeFrameLine.test(text)) this.collector.message(draft, text);
    return true;
  }
}
