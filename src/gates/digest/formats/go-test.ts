/**
 * `go test`: `--- FAIL: TestName/sub (0.00s)` lines, nested by indentation, each followed (or, with
 * -v, preceded) by the test's output (`file_test.go:12: message`), and panics with their goroutine
 * traces. A test that failed only because a subtest failed is not a failure of its own.
 */
import { detached, type FailureDraft } from "../failure-collector.ts";
import { type FormatContext, type FormatFactory, type FormatParser, indentation } from "../format-parser.ts";

const resultLine = /^(\s*)--- (FAIL|PASS|SKIP): (\S+)/;
const runLine = /^=== (?:RUN|CONT|NAME) +(\S+)/;
const outputLine = /^(\s*)\S+\.go:\d+: /;
const packageEndLine = /^(?:FAIL|ok|PASS)(?:\s|$)/;
const frameLine = /^\t(\S+\.go:\d+)/;
const goroutineLine = /^goroutine \d+ \[/;
const equals = 61;

/** Output kept per running test (with -v it comes before the test's result). */
interface Output {
  lines: string[];
}

export const goTest: FormatFactory = (context) => new GoTestParser(context);

class GoTestParser implements FormatParser {
  readonly runner = "go-test";
  // Not `--- PASS`: with -v that is a second line per test; `=== RUN` minus `--- SKIP` counts them.
  readonly triggers = ["--- FAIL", "--- SKIP", "=== RUN", "=== CONT", "=== NAME", "_test.go:"];
  engaged = false;
  private readonly context: FormatContext;
  private verbose = false;
  private runs = 0;
  private skips = 0;
  private running = "";
  private outputs = new Map<string, Output>();
  /** Output of a -v run being captured, and the indentation its continuation lines exceed. */
  private capture: Output | null = null;
  private captureIndent = 0;
  /** The last failure, held back until it is clear it is not a parent of the next one. */
  private pending: FailureDraft | null = null;
  private pendingIndent = 0;
  private pendingHasOutput = false;
  private collecting = false;
  private inTrace = false;
  private lastFunction = "";
  private blockLines = 0;

  constructor(context: FormatContext) {
    this.context = context;
  }

  line(text: string, lineNumber: number): void {
    if (this.capture) {
      if (text.trim() && indentation(text) > this.captureIndent && !resultLine.test(text)) {
        this.keepOutput(this.capture, text);
        return;
      }
      this.stopCapture();
    }
    if (this.collecting) {
      if (this.detail(text)) return;
      this.collecting = false;
      this.engaged = false;
    }
    // `=== RUN   Name` is one line per test with -v, most of the lines this parser gets: read it
    // first and without a regular expression (a line starting with `=` is never a result line).
    if (text.charCodeAt(0) === equals && text.startsWith("=== ")) {
      const running = runningTest(text);
      if (running) {
        this.verbose = true;
        if (text.startsWith("=== RUN")) this.runs++;
        this.running = running;
        this.commitPending();
        return;
      }
    } else {
      const result = resultLine.exec(text);
      if (result) {
        this.result(result[1].length, result[2], result[3], lineNumber);
        return;
      }
    }
    const output = this.running ? outputLine.exec(text) : null;
    if (output) {
      let kept = this.outputs.get(this.running);
      if (!kept) {
        if (this.outputs.size >= 200) this.outputs.delete(this.outputs.keys().next().value as string);
        kept = { lines: [] };
        this.outputs.set(detached(this.running), kept);
      }
      this.keepOutput(kept, text);
      this.capture = kept;
      this.captureIndent = output[1].length;
      this.engaged = true;
      return;
    }
    if (packageEndLine.test(text)) this.commitPending();
  }

  /** As `count` unengaged `=== RUN` lines: see `FormatParser.runLines`. */
  runLines(count: number, lastName: string): void {
    this.verbose = true;
    this.runs += count;
    this.running = lastName;
    this.commitPending();
  }

  end(): void {
    this.commitPending();
    if (this.verbose) this.context.collector.countTests(this.runner, Math.max(this.runs - this.skips, 0));
  }

  private result(indent: number, outcome: string, name: string, lineNumber: number): void {
    const collector = this.context.collector;
    if (outcome === "SKIP") this.skips++;
    const output = this.outputs.get(name);
    this.outputs.delete(name);
    if (outcome !== "FAIL") return;
    const pending = this.pending;
    if (pending && name.startsWith(`${pending.name}/`) && !this.pendingHasOutput) this.pending = null;
    else this.commitPending();
    const draft = collector.draft(this.runner, name, lineNumber);
    for (const line of output?.lines ?? []) this.addOutput(draft, line);
    this.pending = draft;
    this.pendingIndent = indent;
    this.pendingHasOutput = (output?.lines.length ?? 0) > 0;
    this.collecting = true;
    this.inTrace = false;
    this.blockLines = 0;
    this.engaged = true;
  }

  /** Reads one line after a `--- FAIL`; false when the line is not part of its report. */
  private detail(text: string): boolean {
    if (resultLine.test(text) || runLine.test(text) || packageEndLine.test(text)) return false;
    if (++this.blockLines > this.context.collector.limits.blockLines) return false;
    const draft = this.pending as FailureDraft;
    const frame = frameLine.exec(text);
    if (frame) {
      this.context.collector.frame(draft, `${this.lastFunction} ${frame[1]}`);
      return true;
    }
    if (goroutineLine.test(text)) {
      this.inTrace = true;
      return true;
    }
    if (this.inTrace || !text.trim()) {
      if (text.trim()) this.lastFunction = text.trim();
      return true;
    }
    if (indentation(text) > this.pendingIndent || /^(?:panic: |\[signal )/.test(text)) {
      this.addOutput(draft, text);
      this.pendingHasOutput = true;
      return true;
    }
    return false;
  }

  private addOutput(draft: FailureDraft, line: string): void {
    const collector = this.context.collector;
    collector.anchorsIn(draft, line);
    collector.message(draft, line);
  }

  private keepOutput(output: Output, line: string): void {
    if (output.lines.length < this.context.collector.limits.messageLines) output.lines.push(detached(line));
  }

  private stopCapture(): void {
    this.capture = null;
    this.engaged = this.collecting;
  }

  private commitPending(): void {
    if (this.pending) this.context.collector.commit(this.pending);
    this.pending = null;
    this.collecting = false;
    this.engaged = this.capture !== null;
  }
}

/** The test named by `=== RUN|CONT|NAME   Name`, or "" for another `=== ` line. */
function runningTest(text: string): string {
  if (!(text.startsWith("=== RUN ") || text.startsWith("=== CONT ") || text.startsWith("=== NAME ")))
    return "";
  let start = text.indexOf(" ", 4);
  while (text.charCodeAt(start) === 32) start++;
  let end = start;
  while (end < text.length && text.charCodeAt(end) > 32) end++;
  return text.slice(start, end);
}
