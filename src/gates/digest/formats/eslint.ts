/**
 * ESLint's stylish formatter: a file path line, then `  line:col  error|warning  message  rule-id`
 * lines. Each error is one failure named `rule-id: message`; warnings count only when the output holds
 * no error (a run with --max-warnings 0 fails on them).
 */
import type { FailureDraft } from "../failure-collector.ts";
import type { FormatContext, FormatFactory, FormatParser } from "../format-parser.ts";

const problemLine = /^\s+(\d+):(\d+)\s+(error|warning)\s+(.+?)(?:\s{2,}([@\w/-]+))?\s*$/;

export const eslint: FormatFactory = (context) => new EslintParser(context);

class EslintParser implements FormatParser {
  readonly runner = "eslint";
  readonly triggers = ["error  ", "warning  ", "error\x1b", "warning\x1b"];
  readonly engaged = false;
  private readonly context: FormatContext;
  private file = "";
  private lastProblemLine = -1;
  private errors = 0;
  private warnings: FailureDraft[] = [];

  constructor(context: FormatContext) {
    this.context = context;
  }

  line(text: string, lineNumber: number): void {
    const problem = problemLine.exec(text);
    if (!problem) return;
    // The file path is the line above a file's first problem.
    if (lineNumber !== this.lastProblemLine + 1) this.file = this.context.nearby.before(1).trim();
    this.lastProblemLine = lineNumber;
    const [, line, column, severity, message, rule] = problem;
    const collector = this.context.collector;
    const draft = collector.draft(
      this.runner,
      rule ? `${rule}: ${message}` : message,
      lineNumber,
      `${this.file}:${line}:${column}:${rule ?? message}`,
    );
    collector.anchor(draft, this.file, Number(line));
    if (severity === "error") {
      this.errors++;
      collector.commit(draft);
    } else if (this.warnings.length < collector.limits.maxFailures) this.warnings.push(draft);
    else collector.noteRunner(this.runner);
  }

  end(): void {
    if (this.errors === 0) for (const warning of this.warnings) this.context.collector.commit(warning);
    this.warnings = [];
  }
}
