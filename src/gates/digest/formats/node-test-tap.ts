/**
 * node:test's TAP reporter (also plain TAP): `not ok` lines with their YAML diagnostics.
 *
 * TAP prints a test's subtests before the test's own `not ok`, indented one level deeper; a suite that
 * failed only because a subtest did says `failureType: 'subtestsFailed'` and is not a failure of its
 * own. So a nested failure waits until its parent's `not ok` gives the next part of its full name,
 * and is counted once its top-level test has ended.
 */
import { DraftParser } from "../draft-parser.ts";
import type { FailureDraft } from "../failure-collector.ts";
import { type FormatFactory, indentation } from "../format-parser.ts";

const notOkLine = /^(\s*)not ok \d+(?: - )?(.*)$/;
const directive = /(?:^|[^\\])# (?:TODO|SKIP)\b/i;
const countLine = /^# (pass|fail) (\d+)\s*$/;
const yamlField = /^(\s*)([\w-]+):(?: (.*))?$/;

/** A failure waiting for its ancestors' names. */
interface Waiting {
  indent: number;
  draft: FailureDraft;
}

export const nodeTestTap: FormatFactory = (context) => new NodeTestTapParser(context);

class NodeTestTapParser extends DraftParser {
  readonly runner = "node-test";
  readonly triggers = ["not ok", "# pass", "# fail"];
  private waiting: Waiting[] = [];
  private leaf = "";
  private headerIndent = 0;
  private parentFailure = false;
  /** The YAML field whose indented block is being read. */
  private field = "";
  private fieldIndent = 0;

  protected scan(text: string, lineNumber: number): void {
    const notOk = notOkLine.exec(text);
    if (notOk) {
      if (directive.test(notOk[2])) return;
      this.leaf = unescapeName(notOk[2].trim());
      this.start(this.leaf, lineNumber);
      this.headerIndent = notOk[1].length;
      this.parentFailure = false;
      this.field = "";
      return;
    }
    const count = countLine.exec(text);
    if (count) this.collector.countTests(this.runner, Number(count[2]));
  }

  end(): void {
    this.finish();
    for (const waiting of this.waiting) this.collector.commit(waiting.draft);
    this.waiting = [];
  }

  /** Reads one line of the YAML block under a `not ok`; false when the line is not part of it. */
  protected detail(text: string, draft: FailureDraft): boolean {
    const collector = this.collector;
    const trimmed = text.trim();
    const indent = indentation(text);
    if (trimmed && indent <= this.headerIndent) return false;
    if (this.blockFull()) return true;
    if (trimmed === "...") {
      this.finish();
      return true;
    }
    if (trimmed === "---") return true;
    if (this.field && (indent > this.fieldIndent || !trimmed)) {
      if (this.field === "error") collector.message(draft, text.slice(this.fieldIndent + 2));
      else if (this.field === "stack") collector.frame(draft, trimmed);
      return true;
    }
    const field = yamlField.exec(text);
    if (!field) return true;
    const value = field[3] ?? "";
    this.field = field[2];
    this.fieldIndent = field[1].length;
    if (this.field === "location") collector.anchorsIn(draft, value);
    else if (this.field === "failureType" && value.includes("subtestsFailed")) this.parentFailure = true;
    else if (this.field === "error" && !/^[|>]/.test(value)) {
      collector.message(draft, unquote(value));
      this.field = "";
    }
    return true;
  }

  /** The `not ok` block ended: name its waiting subtests, and count them once the top level is reached. */
  protected finish(): void {
    const draft = this.take();
    if (!draft) return;
    const collector = this.collector;
    const indent = this.headerIndent;
    for (const waiting of this.waiting) {
      if (waiting.indent <= indent) continue;
      collector.rename(waiting.draft, `${this.leaf} > ${waiting.draft.name}`);
      waiting.indent = indent;
    }
    if (!this.parentFailure) this.waiting.push({ indent, draft });
    if (indent === 0 || this.waiting.length > collector.limits.maxFailures) {
      for (const waiting of this.waiting) collector.commit(waiting.draft);
      this.waiting = [];
    }
  }
}

/** TAP escapes `#` and `\` in names. */
function unescapeName(name: string): string {
  return name.replace(/\\([\\#])/g, "$1");
}

/** A YAML scalar without its quotes. */
function unquote(value: string): string {
  const trimmed = value.trim();
  if (trimmed.startsWith("'") && trimmed.endsWith("'")) return trimmed.slice(1, -1).replace(/''/g, "'");
  if (trimmed.startsWith('"') && trimmed.endsWith('"')) return trimmed.slice(1, -1).replace(/\\"/g, '"');
  return trimmed;
}
