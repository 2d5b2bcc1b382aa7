/**
 * node:test's TAP reporter (also plain TAP): `not ok` lines with their YAML diagnostics. Nested
 * names come from the `# Subtest:` lines above; suites that failed only because a subtest failed
 * (`failureType: 'subtestsFailed'`) are not failures of their own.
 */
import type { FailureDraft } from "../failure-collector.ts";
import {
  type FormatContext,
  type FormatFactory,
  type FormatParser,
  indentation,
  literal,
} from "../format-parser.ts";

const subtestLine = /^(\s*)# Subtest: (.*)$/;
const notOkLine = /^(\s*)not ok \d+(?: - )?(.*)$/;
const directive = /(?:^|[^\\])# (?:TODO|SKIP)\b/i;
const countLine = /^# (pass|fail) (\d+)\s*$/;
const yamlField = /^(\s*)([\w-]+):(?: (.*))?$/;

export const nodeTestTap: FormatFactory = (context) => new NodeTestTapParser(context);

class NodeTestTapParser implements FormatParser {
  readonly runner = "node-test";
  readonly triggers = [literal("not ok "), literal("# Subtest: "), "^# (?:pass|fail) \\d"];
  engaged = false;
  private readonly context: FormatContext;
  private subtests: { indent: number; name: string }[] = [];
  private draft: FailureDraft | null = null;
  private headerIndent = 0;
  private parentFailure = false;
  /** The YAML field whose indented block is being read. */
  private field = "";
  private fieldIndent = 0;
  private blockLines = 0;

  constructor(context: FormatContext) {
    this.context = context;
  }

  line(text: string, lineNumber: number): void {
    if (this.draft) {
      if (this.diagnostic(text)) return;
      this.finish();
    }
    const subtest = subtestLine.exec(text);
    if (subtest) {
      const indent = subtest[1].length;
      this.subtests = this.subtests.filter((entry) => entry.indent < indent);
      this.subtests.push({ indent, name: unescapeName(subtest[2]) });
      return;
    }
    const notOk = notOkLine.exec(text);
    if (notOk) {
      if (directive.test(notOk[2])) return;
      const indent = notOk[1].length;
      const leaf = unescapeName(notOk[2].trim());
      const parents = this.subtests.filter((entry) => entry.indent < indent).map((entry) => entry.name);
      const name = [...parents, leaf].join(" > ");
      this.draft = this.context.collector.draft(this.runner, name, lineNumber);
      this.headerIndent = indent;
      this.parentFailure = false;
      this.field = "";
      this.blockLines = 0;
      this.engaged = true;
      return;
    }
    const count = countLine.exec(text);
    if (count) this.context.collector.countTests(this.runner, Number(count[2]));
  }

  end(): void {
    this.finish();
  }

  /** Reads one line of the YAML block under a `not ok`; false when the line is not part of it. */
  private diagnostic(text: string): boolean {
    const draft = this.draft as FailureDraft;
    const collector = this.context.collector;
    const trimmed = text.trim();
    const indent = indentation(text);
    if (trimmed && indent <= this.headerIndent) return false;
    if (++this.blockLines > collector.limits.blockLines) {
      this.finish();
      return true;
    }
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

  private finish(): void {
    if (this.draft && !this.parentFailure) this.context.collector.commit(this.draft);
    this.draft = null;
    this.engaged = false;
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
