/**
 * ExUnit (`mix test`): numbered failures `1) test name (Module)` followed by the test's location,
 * the assertion (code, left, right) and a `stacktrace:` of `path:line: (function)` frames. The run's
 * `Randomized with seed N` is the seed of every failure.
 */
import { DraftParser } from "../draft-parser.ts";
import type { FailureDraft } from "../failure-collector.ts";
import { type FormatFactory, indentation } from "../format-parser.ts";

const headerLine = /^ {2}\d+\) (?:((?:test|doctest|property) .*\(\S+\))|(\S+: failure on .*))\s*$/;
const seedLine = /^Randomized with seed (\d+)/;
const countLine =
  /^(?:\d+ (?:doctests?|propert(?:y|ies)|tests?|failures?|excluded|skipped|invalid)(?:, |\s*$))+/;

export const exunit: FormatFactory = (context) => new ExunitParser(context);

class ExunitParser extends DraftParser {
  readonly runner = "exunit";
  readonly triggers = [") test ", ") doctest ", ") property ", ": failure on ", "Randomized", "failure"];
  private inStacktrace = false;
  private sawLocation = false;

  protected scan(text: string, lineNumber: number): void {
    const collector = this.collector;
    const header = headerLine.exec(text);
    if (header) {
      this.start(header[1] ?? header[2], lineNumber);
      this.inStacktrace = false;
      this.sawLocation = false;
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

  /** Reads one line of a failure's report; false when the line is not part of it. */
  protected detail(text: string, draft: FailureDraft): boolean {
    const trimmed = text.trim();
    if (trimmed && indentation(text) < 5) return false;
    if (this.blockFull()) return true;
    const collector = this.collector;
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
}
