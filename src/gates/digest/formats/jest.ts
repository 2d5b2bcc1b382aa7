/**
 * Jest's default reporter: `● suite › test` headers (indented two spaces) under the `FAIL file` line
 * of their test file, then the error, diff, code frame and `at` frames indented four spaces or more.
 */
import { DraftParser } from "../draft-parser.ts";
import type { FailureDraft } from "../failure-collector.ts";
import { type FormatFactory, indentation, passedAndFailed } from "../format-parser.ts";

const fileLine = /^\s*FAIL\s+(\S.*?)(?:\s+\(\d[\d.]*\s*m?s\))?\s*$/;
const headerLine = /^ {2}● (.+)$/;
const frameLine = /^\s+at /;
const codeFrameLine = /^\s+>?\s*\d*\s*\|/;
const countLine = /^Tests:\s+(.*)$/;

export const jest: FormatFactory = (context) => new JestParser(context);

class JestParser extends DraftParser {
  readonly runner = "jest";
  readonly triggers = ["●", "FAIL", "Tests"];
  private file = "";

  protected scan(text: string, lineNumber: number): void {
    const header = headerLine.exec(text);
    if (header) {
      const title = header[1].trim();
      if (title === "Console" || title.startsWith("Console ")) return;
      const name = title.split(" › ").join(" > ");
      const fullName = name === "Test suite failed to run" && this.file ? `${this.file} > ${name}` : name;
      this.start(fullName, lineNumber, `${this.file}\u0000${name}`);
      return;
    }
    const file = fileLine.exec(text);
    if (file && !file[1].includes(" > ")) {
      this.file = file[1];
      return;
    }
    const count = countLine.exec(text);
    const executed = count ? passedAndFailed(count[1]) : null;
    if (executed !== null) this.collector.countTests(this.runner, executed);
  }

  /** Reads one line of a failure's report; false when the line is not part of it. */
  protected detail(text: string, draft: FailureDraft): boolean {
    if (text.trim() && indentation(text) < 4) return false;
    if (this.blockFull()) return true;
    if (frameLine.test(text)) this.frame(draft, text);
    else if (!this.sawFrame && !codeFrameLine.test(text)) this.collector.message(draft, text.slice(4));
    return true;
  }
}
