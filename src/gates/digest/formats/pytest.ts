/**
 * pytest: each `____ name ____` section of FAILURES and ERRORS holds the traceback (`E` lines are the
 * error and diff, `path:line: Error` lines the frames); the short test summary's `FAILED nodeid - msg`
 * lines give the full node id (file::Class::test), which becomes the failure's name.
 */
import { DraftParser } from "../draft-parser.ts";
import type { FailureDraft } from "../failure-collector.ts";
import { type FormatFactory, passedAndFailed } from "../format-parser.ts";

const sectionLine = /^=+ (FAILURES|ERRORS|short test summary info|.+) =+$/;
const headerLine = /^_{3,} (.+?) _{3,}$/;
const locationLine = /^(\S+?):(\d+): ?(.*)$/;
const summaryLine = /^(FAILED|ERROR) (.+?)(?: - (.*))?$/;
const underscore = 95;
const equals = 61;
const finalLine = /^=*\s*((?:\d+ [\w ]+?,? )+)in [\d.]+s\b/;

export const pytest: FormatFactory = (context) => new PytestParser(context);

class PytestParser extends DraftParser {
  readonly runner = "pytest";
  readonly triggers = ["__ ", "=== ", "FAIL", "ERROR", "passed", "failed"];
  // Outside a failure's section a `=== ` line that is not `====` is ignored (see `scan`).
  readonly ignoresRunLines = true;
  private inFailures = false;

  protected scan(text: string, lineNumber: number): void {
    const collector = this.collector;
    // Cheap tests on the first characters first: go's `=== RUN` lines reach this parser too.
    const first = text.charCodeAt(0);
    if (first === underscore) {
      this.header(text, lineNumber);
      return;
    }
    if (first === equals && !text.startsWith("====")) return;
    const final = finalLine.exec(text);

    if (final && /\b(?:passed|failed)\b/.test(final[1])) {
      collector.countTests(this.runner, passedAndFailed(final[1]) ?? 0);
      return;
    }
    const section = sectionLine.exec(text);
    if (section) {
      this.inFailures = section[1] === "FAILURES" || section[1] === "ERRORS";
      return;
    }
    const summary = first === 70 || first === 69 ? summaryLine.exec(text) : null;
    if (summary && isNodeId(summary[2])) {
      const draft = collector.draft(this.runner, summary[2], lineNumber, keyOfNodeId(summary[2]));
      if (summary[3]) collector.message(draft, summary[3]);
      collector.commit(draft, { rename: true });
    }
  }

  private header(text: string, lineNumber: number): void {
    const header = this.inFailures ? headerLine.exec(text) : null;
    if (header) this.start(header[1], lineNumber, keyOfHeader(header[1]));
  }

  /** Reads one line of a failure's section; false when the line is not part of it. */
  protected detail(text: string, draft: FailureDraft): boolean {
    if (headerLine.test(text) || sectionLine.test(text)) return false;
    if (this.blockFull()) return true;
    const collector = this.collector;
    if (text.startsWith("E "))
      collector.message(draft, text.startsWith("E       ") ? text.slice(8) : text.slice(2));
    else if (locationLine.test(text)) collector.frame(draft, text);
    return true;
  }
}

/** `tests/test_a.py::TestA::test_b[1]` or a collected file; not unittest's `FAILED (failures=2)`. */
function isNodeId(text: string): boolean {
  return text.includes("::") || /\.py$/.test(text);
}

/** The key shared by a section header (`TestA.test_b`) and its node id (`tests/a.py::TestA::test_b`). */
function keyOfNodeId(nodeId: string): string {
  const parts = nodeId.split("::");
  return parts.length > 1 ? parts.slice(1).join(".") : nodeId;
}

function keyOfHeader(title: string): string {
  return title.replace(/^ERROR at (?:setup|teardown) of /, "").replace(/^ERROR collecting /, "");
}
