/**
 * The skeleton most format parsers share: a failure's first line starts a draft; while it is open,
 * every line goes to `detail` until one is not part of the failure's report, which commits the draft
 * and is then read like any other line by `scan`.
 */
import type { RunnerName } from "./digest-types.ts";
import type { FailureCollector, FailureDraft } from "./failure-collector.ts";
import type { FormatContext, FormatParser } from "./format-parser.ts";

export abstract class DraftParser implements FormatParser {
  abstract readonly runner: RunnerName;
  abstract readonly triggers: readonly string[];
  engaged = false;
  protected readonly collector: FailureCollector;
  /** The failure being read, or null between failures. */
  protected draft: FailureDraft | null = null;
  /** Lines read since the draft started, for the formats that bound it (see `blockFull`). */
  protected blockLines = 0;
  /** Whether a stack frame of the draft was read (see `frame`): formats whose message ends there. */
  protected sawFrame = false;

  constructor(context: FormatContext) {
    this.collector = context.collector;
  }

  line(text: string, lineNumber: number): void {
    if (this.draft) {
      if (this.detail(text, this.draft)) return;
      this.finish();
    }
    this.scan(text, lineNumber);
  }

  end(): void {
    this.finish();
  }

  /** A line outside any failure's report (also the one that ended it). */
  protected abstract scan(text: string, lineNumber: number): void;

  /** One line while `draft` is open; false when the line is not part of its report (it then commits). */
  protected abstract detail(text: string, draft: FailureDraft): boolean;

  /** Opens a draft for the failure whose report starts at `lineNumber`; the parser then sees every line. */
  protected start(name: string, lineNumber: number, key: string = name): FailureDraft {
    const draft = this.collector.draft(this.runner, name, lineNumber, key);
    this.draft = draft;
    this.blockLines = 0;
    this.sawFrame = false;
    this.engaged = true;
    return draft;
  }

  /**
   * Counts one more line of the open draft. Past `limits.blockLines` the draft is committed and the
   * result is true: the line is consumed, the rest of the report is no longer read as details.
   */
  protected blockFull(): boolean {
    if (++this.blockLines <= this.collector.limits.blockLines) return false;
    this.finish();
    return true;
  }

  /** Adds a stack frame to the draft and notes that frames have started. */
  protected frame(draft: FailureDraft, line: string): void {
    this.sawFrame = true;
    this.collector.frame(draft, line);
  }

  /** Commits the open draft, if any, and stops asking for every line. */
  protected finish(): void {
    const draft = this.take();
    if (draft) this.collector.commit(draft);
  }

  /** Closes the open draft without committing it and stops asking for every line; returns it. */
  protected take(): FailureDraft | null {
    const draft = this.draft;
    this.draft = null;
    this.engaged = false;
    return draft;
  }
}
