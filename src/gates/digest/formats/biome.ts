/**
 * Biome's diagnostics (`biome check`, `biome lint`, `biome ci`): a `file:line:col category ━━━` header,
 * then `× message` (error), `! message` (warning) or `i message` (information) and a code frame.
 * Each error is one failure named `category: message`; warnings count only when there is no error.
 */
import type { FailureDraft } from "../failure-collector.ts";
import { type FormatContext, type FormatFactory, type FormatParser, indentation } from "../format-parser.ts";

const headerLine = /^(\S+?)(?::(\d+):(\d+))? ([a-zA-Z][\w/]*)(?: +[A-Z]+)* +━+\s*$/;
const markerLine = /^\s+([×✖!⚠iℹ]) (.*)$/;

export const biome: FormatFactory = (context) => new BiomeParser(context);

class BiomeParser implements FormatParser {
  readonly runner = "biome";
  readonly triggers = ["━━━"];
  engaged = false;
  private readonly context: FormatContext;
  private draft: FailureDraft | null = null;
  private category = "";
  private severity = "";
  private blockLines = 0;
  private errors = 0;
  private warnings: FailureDraft[] = [];

  constructor(context: FormatContext) {
    this.context = context;
  }

  line(text: string, lineNumber: number): void {
    if (this.draft) {
      if (this.detail(text)) return;
      this.finish();
    }
    const header = headerLine.exec(text);
    if (!header) return;
    const [, file, line, column, category] = header;
    const collector = this.context.collector;
    this.draft = collector.draft(this.runner, category, lineNumber, `${file}:${line}:${column}:${category}`);
    collector.anchor(this.draft, file, Number(line ?? 1));
    this.category = category;
    this.severity = "";
    this.blockLines = 0;
    this.engaged = true;
  }

  end(): void {
    this.finish();
    if (this.errors === 0) for (const warning of this.warnings) this.context.collector.commit(warning);
    this.warnings = [];
  }

  /** Reads one line of a diagnostic; false when the line is not part of it. */
  private detail(text: string): boolean {
    if (text.trim() && indentation(text) === 0) return false;
    const collector = this.context.collector;
    const draft = this.draft as FailureDraft;
    if (++this.blockLines > 60) return true;
    const marker = this.severity ? null : markerLine.exec(text);
    if (marker) {
      this.severity = "×✖".includes(marker[1]) ? "error" : "!⚠".includes(marker[1]) ? "warning" : "info";
      collector.rename(draft, `${this.category}: ${marker[2].trim()}`, draft.key);
    } else if (this.severity && draft.messageLines.length < 12) collector.message(draft, text);
    return true;
  }

  private finish(): void {
    const draft = this.draft;
    this.draft = null;
    this.engaged = false;
    if (!draft) return;
    const collector = this.context.collector;
    if (this.severity === "error") {
      this.errors++;
      collector.commit(draft);
    } else if (this.severity === "warning" && this.warnings.length < collector.limits.maxFailures) {
      this.warnings.push(draft);
    }
  }
}
