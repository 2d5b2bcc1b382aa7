/**
 * node:test's spec reporter: the tree of `▶` suites and `✖` tests gives each failing test its full
 * name; the `✖ failing tests:` section after it gives the location (`test at file:line:col`), the
 * error and the stack. When the run stopped before that section, the failures of the tree are kept.
 */
import { DraftParser } from "../draft-parser.ts";
import { detached, type FailureDraft } from "../failure-collector.ts";
import { type FormatFactory, indentation } from "../format-parser.ts";

const treeLine = /^(\s*)([▶✖]) (.*?)(?: \(\d[\d.]*m?s\))?(?: # .*)?$/;
const locationLine = /^test at (.+)$/;
const countLine = /^ℹ (pass|fail) (\d+)\s*$/;
const frameLine = /^\s+at /;
const eslintSummary = /^✖ \d+ problems? \(/;

interface TreeFailure {
  leaf: string;
  name: string;
  lineNumber: number;
  reported: boolean;
}

export const nodeTestSpec: FormatFactory = (context) => new NodeTestSpecParser(context);

class NodeTestSpecParser extends DraftParser {
  readonly runner = "node-test";
  readonly triggers = ["▶", "✖", "ℹ"];
  private suites: { indent: number; name: string }[] = [];
  private treeFailures: TreeFailure[] = [];
  private inSummary = false;
  /** A `▶` suite or an `ℹ` count was seen: the tree's `✖` lines really are node:test's. */
  private sawSuiteOrCount = false;
  private location = "";

  protected scan(text: string, lineNumber: number): void {
    if (eslintSummary.test(text)) return;
    if (text === "✖ failing tests:") {
      // The summary section: read every line until something else starts.
      this.inSummary = true;
      this.engaged = true;
      return;
    }
    if (this.inSummary && this.engaged) {
      const location = locationLine.exec(text);
      if (location) {
        this.location = location[1];
        return;
      }
      if (text === "") return;
      if (!text.startsWith("✖ ")) {
        this.inSummary = false;
        this.engaged = false;
        return;
      }
    }
    const count = countLine.exec(text);
    if (count) {
      this.sawSuiteOrCount = true;
      this.collector.countTests(this.runner, Number(count[2]));
      return;
    }
    const tree = treeLine.exec(text);
    if (!tree) return;
    const indent = tree[1].length;
    const name = tree[3];
    if (this.inSummary && tree[2] === "✖" && indent === 0) this.summaryEntry(name, lineNumber);
    else if (!this.inSummary) this.treeEntry(indent, tree[2], name, lineNumber);
  }

  end(): void {
    this.finish();
    // The run ended before its summary: keep what the tree showed.
    for (const failure of this.treeFailures) {
      if (failure.reported || !this.sawSuiteOrCount) continue;
      this.collector.commit(this.collector.draft(this.runner, failure.name, failure.lineNumber));
    }
    this.treeFailures = [];
  }

  private treeEntry(indent: number, marker: string, name: string, lineNumber: number): void {
    const closing = this.suites.find((suite) => suite.indent === indent);
    this.suites = this.suites.filter((suite) => suite.indent < indent);
    if (marker === "▶") {
      this.sawSuiteOrCount = true;
      this.suites.push({ indent, name: detached(name) });
      return;
    }
    // `✖ name` at a suite's own indentation closes that suite; it failed through its tests.
    if (closing?.name === name) return;
    if (this.treeFailures.length >= this.collector.limits.maxFailures) return;
    const full = [...this.suites.map((suite) => suite.name), name].join(" > ");
    this.treeFailures.push({ leaf: detached(name), name: detached(full), lineNumber, reported: false });
  }

  /** A `✖ name` of the summary: its report follows, named as the tree named it. */
  private summaryEntry(leaf: string, lineNumber: number): void {
    const known = this.treeFailures.find((failure) => !failure.reported && failure.leaf === leaf);
    if (known) known.reported = true;
    const draft = this.start(known?.name ?? leaf, lineNumber);
    if (this.location) this.collector.anchorsIn(draft, this.location);
    this.location = "";
  }

  /** Reads one line of a failure's report; false when the line is not part of it. */
  protected detail(text: string, draft: FailureDraft): boolean {
    if (text === "" || indentation(text) < 2) return false;
    if (this.blockFull()) return true;
    if (frameLine.test(text)) this.frame(draft, text);
    else if (!this.sawFrame) this.collector.message(draft, text.slice(2));
    return true;
  }

  /** Commits the open draft; inside the summary the parser still reads every line. */
  protected finish(): void {
    super.finish();
    this.engaged = this.inSummary;
  }
}
