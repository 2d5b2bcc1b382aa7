/**
 * The fallback for output no other format recognizes: every line that says FAIL, Error, error:,
 * not ok, failed or panic, with two lines before and a few after. Its failures are used only when no
 * runner's failure was recognized (see `FailureCollector`).
 */
import type { FailureDraft } from "../failure-collector.ts";
import type { FormatContext, FormatFactory, FormatParser } from "../format-parser.ts";

const contextAfter = 6;
const harmless = /\b0 (?:failed|failures?|errors?)\b|\b(?:failed|failures|errors)[=:] ?0\b|^\s*$/i;

export const generic: FormatFactory = (context) => new GenericParser(context);

class GenericParser implements FormatParser {
  readonly runner = "generic";
  readonly triggers = ["FAIL", "Error", "not ok", "failed", "error:", "error[", "panic"];
  engaged = false;
  private readonly context: FormatContext;
  private draft: FailureDraft | null = null;
  private lastHit = 0;
  private lastLine = 0;

  constructor(context: FormatContext) {
    this.context = context;
  }

  line(text: string, lineNumber: number): void {
    const collector = this.context.collector;
    // Once a runner's failure is known the fallback's are never used: stop working for them.
    if (collector.hasRunnerFailures()) {
      this.draft = null;
      this.engaged = false;
      return;
    }
    const hit = /FAIL|Error|not ok|failed|\berror(?::|\[)|panic/.test(text) && !harmless.test(text);
    if (this.draft) {
      if (
        lineNumber - this.lastHit <= contextAfter &&
        this.draft.messageLines.length < collector.limits.messageLines
      ) {
        collector.message(this.draft, text);
        collector.anchorsIn(this.draft, text);
        if (hit) this.lastHit = lineNumber;
        this.lastLine = lineNumber;
        this.engaged = lineNumber - this.lastHit < contextAfter;
        if (!this.engaged) this.finish();
        return;
      }
      this.finish();
    }
    if (!hit) return;
    const draft = collector.draft(this.runner, text, lineNumber, String(lineNumber));
    for (let distance = 2; distance >= 1; distance--) {
      if (lineNumber - distance <= this.lastLine) continue;
      const before = this.context.nearby.before(distance);
      collector.message(draft, before);
      collector.anchorsIn(draft, before);
    }
    collector.message(draft, text);
    collector.anchorsIn(draft, text);
    this.draft = draft;
    this.lastHit = lineNumber;
    this.lastLine = lineNumber;
    this.engaged = true;
  }

  end(): void {
    this.finish();
  }

  private finish(): void {
    if (this.draft) this.context.collector.commit(this.draft);
    this.draft = null;
    this.engaged = false;
  }
}
