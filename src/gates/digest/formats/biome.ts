/**
 * Biome's diagnostics (`biome check`, `biome lint`, `biome ci`): a `file:line:col category ━━━` header,
 * then `× message` (error), `! message` (warning) or `i message` (information) and a code frame.
 * Each error is one failure named `category: message`; warnings count only when there is no error.
 */
import { DraftParser } from "../draft-parser.ts";
import type { FailureDraft } from "../failure-collector.ts";
import { type FormatFactory, indentation } from "../format-parser.ts";

const headerLine = /^(\S+?)(?::(\d+):(\d+))? ([a-zA-Z][\w/]*)(?: +[A-Z]+)* +━+\s*$/;
const markerLine = /^\s+([×✖!⚠iℹ]) (.*)$/;

export const biome: FormatFactory = (context) => new BiomeParser(context);

class BiomeParser extends DraftParser {
  readonly runner = "biome";
  readonly triggers = ["━━━"];
  private category = "";
  private severity = "";
  private errors = 0;
  private warnings: FailureDraft[] = [];

  protected scan(text: string, lineNumber: number): void {
    const header = headerLine.exec(text);
    if (!header) return;
    const [, file, line, column, category] = header;
    const draft = this.start(category, lineNumber, `${file}:${line}:${column}:${category}`);
    this.collector.anchor(draft, file, Number(line ?? 1));
    this.category = category;
    this.severity = "";
  }

  end(): void {
    this.finish();
    if (this.errors === 0) for (const warning of this.warnings) this.collector.commit(warning);
    this.warnings = [];
  }

  /** Reads one line of a diagnostic; false when the line is not part of it. */
  protected detail(text: string, draft: FailureDraft): boolean {
    if (text.trim() && indentation(text) === 0) return false;
    const collector = this.collector;
    if (++this.blockLines > 60) return true;
    const marker = this.severity ? null : markerLine.exec(text);
    if (marker) {
      this.severity = "×✖".includes(marker[1]) ? "error" : "!⚠".includes(marker[1]) ? "warning" : "info";
      collector.rename(draft, `${this.category}: ${marker[2].trim()}`, draft.key);
    } else if (this.severity && draft.messageLines.length < 12) collector.message(draft, text);
    return true;
  }

  /** Commits an error; keeps a warning until the end shows whether there was any error. */
  protected finish(): void {
    const draft = this.take();
    if (!draft) return;
    const collector = this.collector;
    if (this.severity === "error") {
      this.errors++;
      collector.commit(draft);
    } else if (this.severity === "warning" && this.warnings.length < collector.limits.maxFailures) {
      this.warnings.push(draft);
    }
  }
}
