/**
 * Python's unittest: `FAIL: test (module.Class.test)` / `ERROR: ...` headers between `====` rules, a
 * traceback whose `File "path", line N` frames are the anchors, then the error and diff.
 */
import { DraftParser } from "../draft-parser.ts";
import type { FailureDraft } from "../failure-collector.ts";
import { type FormatFactory, indentation } from "../format-parser.ts";

const headerLine = /^(?:FAIL|ERROR): (\S+) \(([^)]*)\)(.*)$/;
const ruleLine = /^(?:={20,}|-{20,})\s*$/;
const frameLine = /^\s+File "/;
const ranLine = /^Ran (\d+) tests? in /;
const outcomeLine = /^(?:OK|FAILED)(?: \((.*)\))?\s*$/;

export const unittest: FormatFactory = (context) => new UnittestParser(context);

class UnittestParser extends DraftParser {
  readonly runner = "unittest";
  readonly triggers = ["FAIL", "ERROR", "Ran ", "OK ("];
  private inMessage = false;
  private ran: number | null = null;

  protected scan(text: string, lineNumber: number): void {
    const header = headerLine.exec(text);
    if (header) {
      const [, method, id, rest] = header;
      const base = id === method || id.endsWith(`.${method}`) ? id : `${id}.${method}`;
      this.start(`${base}${rest ? ` ${rest.trim()}` : ""}`, lineNumber);
      this.inMessage = false;
      return;
    }
    const ran = ranLine.exec(text);
    if (ran) {
      this.countRan();
      this.ran = Number(ran[1]);
      return;
    }
    const outcome = outcomeLine.exec(text);
    if (outcome && this.ran !== null) {
      const skipped = /skipped=(\d+)/.exec(outcome[1] ?? "");
      this.ran -= Number(skipped?.[1] ?? 0);
      this.countRan();
    }
  }

  end(): void {
    this.finish();
    this.countRan();
  }

  private countRan(): void {
    if (this.ran !== null) this.collector.countTests(this.runner, Math.max(this.ran, 0));
    this.ran = null;
  }

  /** Reads one line of a failure's report; false when the line is not part of it. */
  protected detail(text: string, draft: FailureDraft): boolean {
    if (ruleLine.test(text)) {
      if (!text.startsWith("-") || this.inMessage) return false;
      return true;
    }
    if (headerLine.test(text) || ranLine.test(text)) return false;
    if (this.blockFull()) return true;
    const collector = this.collector;
    if (frameLine.test(text)) {
      this.inMessage = false;
      collector.frame(draft, text);
    } else if (text.startsWith("Traceback (most recent call last)")) this.inMessage = false;
    else if (this.inMessage || (text.trim() && indentation(text) === 0)) {
      this.inMessage = true;
      collector.message(draft, text);
    }
    return true;
  }
}
