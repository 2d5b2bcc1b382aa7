/**
 * `cargo test` (libtest): `test name ... FAILED` lines, then per failure a `---- name stdout ----`
 * section with the panic location, message, and (with RUST_BACKTRACE) frames; `test result:` lines
 * give the counts, one per test binary.
 */
import { DraftParser } from "../draft-parser.ts";
import type { FailureDraft } from "../failure-collector.ts";
import type { FormatFactory } from "../format-parser.ts";

const failedLine = /^test (.+) \.\.\. FAILED\s*$/;
const headerLine = /^---- (.+) stdout ----\s*$/;
const resultLine = /^test result: \w+\. (\d+) passed; (\d+) failed;/;
const panicLine = /^thread '.*' (?:\(\d+\) )?panicked at /;
const frameFileLine = /^\s+at (\S+:\d+(?::\d+)?)\s*$/;
const frameFunctionLine = /^\s+\d+: (.*)$/;

export const cargoTest: FormatFactory = (context) => new CargoTestParser(context);

class CargoTestParser extends DraftParser {
  readonly runner = "cargo-test";
  readonly triggers = ["FAIL", "---- ", "passed"];
  private inBacktrace = false;
  private lastFunction = "";

  protected scan(text: string, lineNumber: number): void {
    const collector = this.collector;
    // Every line this parser acts on starts with `test ` or `---- `; go's `--- PASS` lines reach it too.
    if (!text.startsWith("test ") && !text.startsWith("---- ")) return;
    const failed = failedLine.exec(text);
    if (failed) {
      collector.commit(collector.draft(this.runner, failed[1], lineNumber));
      return;
    }
    const header = headerLine.exec(text);
    if (header) {
      this.start(header[1], lineNumber);
      this.inBacktrace = false;
      return;
    }
    const result = resultLine.exec(text);
    if (result) collector.countTests(this.runner, Number(result[1]) + Number(result[2]));
  }

  /** Reads one line of a failure's stdout section; false when the line is not part of it. */
  protected detail(text: string, draft: FailureDraft): boolean {
    if (headerLine.test(text) || resultLine.test(text) || text === "failures:") return false;
    if (this.blockFull()) return true;
    const collector = this.collector;
    if (panicLine.test(text)) {
      collector.anchorsIn(draft, text);
      this.inBacktrace = false;
      return true;
    }
    if (text === "stack backtrace:") {
      this.inBacktrace = true;
      return true;
    }
    if (this.inBacktrace) {
      const file = frameFileLine.exec(text);
      if (file) collector.frame(draft, `${this.lastFunction} at ${file[1]}`);
      const frame = frameFunctionLine.exec(text);
      if (frame) this.lastFunction = frame[1];
      return true;
    }
    // The panic message ends at the first blank line after it.
    if (!text.trim()) return draft.messageLines.length === 0;
    if (!text.startsWith("note: ")) collector.message(draft, text);
    return true;
  }
}
