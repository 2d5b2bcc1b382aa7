/**
 * `cargo test` (libtest): `test name ... FAILED` lines, then per failure a `---- name stdout ----`
 * section with the panic location, message, and (with RUST_BACKTRACE) frames; `test result:` lines
 * give the counts, one per test binary.
 */
import type { FailureDraft } from "../failure-collector.ts";
import type { FormatContext, FormatFactory, FormatParser } from "../format-parser.ts";

const failedLine = /^test (.+) \.\.\. FAILED\s*$/;
const headerLine = /^---- (.+) stdout ----\s*$/;
const resultLine = /^test result: \w+\. (\d+) passed; (\d+) failed;/;
const panicLine = /^thread '.*' (?:\(\d+\) )?panicked at /;
const frameFileLine = /^\s+at (\S+:\d+(?::\d+)?)\s*$/;
const frameFunctionLine = /^\s+\d+: (.*)$/;

export const cargoTest: FormatFactory = (context) => new CargoTestParser(context);

class CargoTestParser implements FormatParser {
  readonly runner = "cargo-test";
  readonly triggers = ["FAIL", "---- ", "passed"];
  engaged = false;
  private readonly context: FormatContext;
  private draft: FailureDraft | null = null;
  private inBacktrace = false;
  private lastFunction = "";
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
    // Every line this parser acts on starts with `test ` or `---- `; go's `--- PASS` lines reach it too.
    if (!text.startsWith("test ") && !text.startsWith("---- ")) return;
    const failed = failedLine.exec(text);
    if (failed) {
      collector.commit(collector.draft(this.runner, failed[1], lineNumber));
      return;
    }
    const header = headerLine.exec(text);
    if (header) {
      this.draft = collector.draft(this.runner, header[1], lineNumber);
      this.inBacktrace = false;
      this.blockLines = 0;
      this.engaged = true;
      return;
    }
    const result = resultLine.exec(text);
    if (result) collector.countTests(this.runner, Number(result[1]) + Number(result[2]));
  }

  end(): void {
    this.finish();
  }

  /** Reads one line of a failure's stdout section; false when the line is not part of it. */
  private detail(text: string): boolean {
    if (headerLine.test(text) || resultLine.test(text) || text === "failures:") return false;
    const collector = this.context.collector;
    const draft = this.draft as FailureDraft;
    if (++this.blockLines > collector.limits.blockLines) {
      this.finish();
      return true;
    }
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

  private finish(): void {
    if (this.draft) this.context.collector.commit(this.draft);
    this.draft = null;
    this.engaged = false;
  }
}
