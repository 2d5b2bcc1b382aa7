/**
 * node:test's spec reporter: the tree of `▶` suites and `✖` tests gives each failing test its full
 * name; the `✖ failing tests:` section after it gives the location (`test at file:line:col`), the
 * error and the stack. When the run stopped before that section, the failures of the tree are kept.
 */
import type { FailureDraft } from "../failure-collector.ts";
import { detached } from "../failure-collector.ts";
import { type FormatContext, type FormatFactory, type FormatParser, indentation } from "../format-parser.ts";

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

class NodeTestSpecParser implements FormatParser {
  readonly runner = "node-test";
  readonly triggers = ["▶", "✖", "ℹ"];
  engaged = false;
  private readonly context: FormatContext;
  private suites: { indent: number; name: string }[] = [];
  private treeFailures: TreeFailure[] = [];
  private inSummary = false;
  /** A `▶` suite or an `ℹ` count was seen: the tree's `✖` lines really are node:test's. */
  private sawSuiteOrCount = false;
  private location = "";
  private draft: FailureDraft | null = null;
  private sawFrame = false;
  private blockLines = 0;

  constructor(context: FormatContext) {
    this.context = context;
  }

  line(text: string, lineNumber: number): void {
    if (this.draft) {
      if (this.detail(text)) return;
      this.finish();
    }
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
      this.context.collector.countTests(this.runner, Number(count[2]));
      return;
    }
    const tree = treeLine.exec(text);
    if (!tree) return;
    const indent = tree[1].length;
    const name = tree[3];
    if (this.inSummary && tree[2] === "✖" && indent === 0) this.start(name, lineNumber);
    else if (!this.inSummary) this.treeEntry(indent, tree[2], name, lineNumber);
  }

  end(): void {
    this.finish();
    // The run ended before its summary: keep what the tree showed.
    for (const failure of this.treeFailures) {
      if (failure.reported || !this.sawSuiteOrCount) continue;
      this.context.collector.commit(
        this.context.collector.draft(this.runner, failure.name, failure.lineNumber),
      );
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
    if (this.treeFailures.length >= this.context.collector.limits.maxFailures) return;
    const full = [...this.suites.map((suite) => suite.name), name].join(" > ");
    this.treeFailures.push({ leaf: detached(name), name: detached(full), lineNumber, reported: false });
  }

  private start(leaf: string, lineNumber: number): void {
    const known = this.treeFailures.find((failure) => !failure.reported && failure.leaf === leaf);
    if (known) known.reported = true;
    const collector = this.context.collector;
    this.draft = collector.draft(this.runner, known?.name ?? leaf, lineNumber);
    if (this.location) collector.anchorsIn(this.draft, this.location);
    this.location = "";
    this.sawFrame = false;
    this.blockLines = 0;
    this.engaged = true;
  }

  /** Reads one line of a failure's report; false when the line is not part of it. */
  private detail(text: string): boolean {
    if (text === "" || indentation(text) < 2) return false;
    const collector = this.context.collector;
    const draft = this.draft as FailureDraft;
    if (++this.blockLines > collector.limits.blockLines) {
      this.finish();
      return true;
    }
    if (frameLine.test(text)) {
      this.sawFrame = true;
      collector.frame(draft, text);
    } else if (!this.sawFrame) collector.message(draft, text.slice(2));
    return true;
  }

  private finish(): void {
    if (this.draft) this.context.collector.commit(this.draft);
    this.draft = null;
    this.engaged = this.inSummary;
  }
}
