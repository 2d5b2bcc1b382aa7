/**
 * RSpec's progress and documentation formatters: numbered failures under `Failures:` with the full
 * example description, `Failure/Error:`, expected/got and diff, and `# ./spec/x_spec.rb:12:in ...`
 * frames; the `rspec ./spec/x_spec.rb:11 # description` lines add each example's own location. The
 * parser reads every line of those two sections.
 */
import { DraftParser } from "../draft-parser.ts";
import type { FailureDraft } from "../failure-collector.ts";
import { type FormatFactory, indentation } from "../format-parser.ts";

const headerLine = /^ {2}\d+\) (.+)$/;
const rerunLine = /^rspec (\S+?)(?::(\d+)|\[[\d:,]+\]) # (.+)$/;
const frameLine = /^\s+# (.*)$/;
const countLine = /^(\d+) examples?, (\d+) failures?(?:, (\d+) pending)?/;
const seedLine = /^Randomized with seed (\d+)/;

export const rspec: FormatFactory = (context) => new RspecParser(context);

class RspecParser extends DraftParser {
  readonly runner = "rspec";
  readonly triggers = ["Failures:", "Failed examples:", "Randomized", "failure"];
  /** The section being read: `failures`, `examples` (the rerun lines), or none. */
  private section: "" | "failures" | "examples" = "";

  protected scan(text: string, lineNumber: number): void {
    const collector = this.collector;
    if (text === "Failures:" || text === "Failed examples:") {
      this.section = text === "Failures:" ? "failures" : "examples";
      this.engaged = true;
      return;
    }
    const header = this.section === "failures" ? headerLine.exec(text) : null;
    if (header) {
      this.start(header[1], lineNumber);
      return;
    }
    const rerun = rerunLine.exec(text);
    if (rerun) {
      const draft = collector.draft(this.runner, rerun[3], lineNumber);
      if (rerun[2]) collector.anchor(draft, rerun[1], Number(rerun[2]));
      collector.commit(draft);
      return;
    }
    // Anything else that is not indented or blank ends the section (`Finished in`, the counts).
    if (this.section && text.trim() && indentation(text) === 0) {
      this.section = "";
      this.engaged = false;
    }
    const count = countLine.exec(text);
    if (count) {
      collector.countTests(this.runner, Number(count[1]) - Number(count[3] ?? 0));
      return;
    }
    const seed = seedLine.exec(text);
    if (seed) collector.seed(this.runner, seed[1]);
  }

  /** Reads one line of a failure's report; false when the line is not part of it. */
  protected detail(text: string, draft: FailureDraft): boolean {
    if (text.trim() && indentation(text) < 5) return false;
    if (this.blockFull()) return true;
    const frame = frameLine.exec(text);
    if (frame) this.collector.frame(draft, frame[1]);
    else if (draft.stack.length === 0) this.collector.message(draft, text);
    return true;
  }

  /** Commits the open draft; inside a section the parser still reads every line. */
  protected finish(): void {
    super.finish();
    this.engaged = this.section !== "";
  }
}
