/**
 * ExUnit (`mix test`): numbered failures `1) test name (Module)` followed by the test's location,
 * the assertion (code, left, right) and a `stacktrace:` of `path:line: (function)` frames. The run's
 * `Randomized with seed N` is the seed of every failure.
 */
import type { FailureDraft } from "../failure-collector.ts";
import { type FormatContext, type FormatFactory, type FormatParser, indentation } from "../format-parser.ts";

const headerLine = /^ {2}\d+\) (?:((?:test|doctest|property) .*\(\S+\))|(\S+: failure on .*))\s*$/;
const seedLine = /^Randomized with seed (\d+)/;
const countLine =
  /^(?:\d+ (?:doctests?|propert(?:y|ies)|tests?|failures?|excluded|skipped|invalid)(?:, |\s*$))+/;

export const exunit: FormatFactory = (context) => new ExunitParser(context);

class ExunitParser implements FormatParser {
  readonly runner = "exunit";
  readonly triggers = [") test ", ") doctest ", ") property ", ": failure on ", "Randomized", "failure"];
  engaged = false;
  private readonly context: FormatContext;
  private draft: FailureDraft | null = null;
  private inStacktrace = false;
  private sawLocation = false;
  private blockLines = 0;

  constructor(context: FormatContext) {
    this.context = context;
  }

  line(text: string, lineNumber: number): void {
    if (this.draft) {
      if (this.detail(text)) return;
      this.finish();
    }
    const collector = this.context.collector;
    const header = headerLine.exec(text);
    if (header) {
      this.draft = collector.draft(this.runner, header[1] ?? header[2], lineNumber);
      this.inStacktrace = false;
      this.sawLocation = false;
      this.blockLines = 0;
      this.engaged = true;
      return;
    }
    const seed = seedLine.exec(text);
    if (seed) {
      collector.seed(this.runner, seed[1]);
      return;
    }
    if (countLine.test(text) && /\d+ failures?\b/.test(text)) {
      let executed = 0;
      for (const [, count, kind] of text.matchAll(/(\d+) (\w+)/g)) {
        if (/^(?:doctests?|propert|tests?)/.test(kind)) executed += Number(count);
        else if (/^(?:excluded|skipped|invalid)$/.test(kind)) executed -= Number(count);
      }
      collector.countTests(this.runner, Math.max(executed, 0));
    }
  }

  end(): void {
    this.finish();
  }

  /** Reads one line of a failure's report; false when the line is not part of it. */
  private detail(text: string): boolean {
    const trimmed = text.trim();
    if (trimmed && indentation(text) < 5) return false;
    const collector = this.context.collector;
    const draft = this.draft as FailureDraft;
    if (++this.blockLines > collector.limits.blockLines) {
      this.finish();
      return true;
    }
    if (!trimmed) return true;
    if (!this.sawLocation) {
      this.sawLocation = true;
      if (/^\S+:\d+$/.test(trimmed)) {
        collector.anchorsIn(draft, trimmed);
        return true;
      }
    }
    if (trimmed === "stacktrace:") this.inStacktrace = true;
    else if (this.inStacktrace) collector.frame(draft, trimmed);
    else collector.message(draft, text);
    return true;
  }

  private finish(): void {
    if (this.draft) this.context.collector.commit(this.draft);
    this.draft = null;
    this.engaged = false;
  }
}
