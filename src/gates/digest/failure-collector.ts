/**
 * Where the format parsers put what they find. A parser starts a draft at a failure's first line, adds
 * message lines, stack frames and anchors as they come (each bounded), then commits or discards it.
 * Committing a draft whose runner and key were seen before merges into the earlier failure, so a
 * runner that reports a failure twice (details, then a summary line) yields one failure.
 */
import { findAnchors, projectAnchor } from "./anchors.ts";
import type { Anchor, Digest, DigestLimits, FailureBlock, RunnerName } from "./digest-types.ts";

/** A failure being read. Mutate it only through the collector's methods, which keep it bounded. */
export interface FailureDraft {
  runner: RunnerName;
  name: string;
  /** Identifies the failure within its runner for merging; defaults to the name. */
  key: string;
  logLine: number;
  anchors: Anchor[];
  messageLines: string[];
  messageCharacters: number;
  stack: string[];
  seed?: string;
}

/** How a committed draft merges into an earlier failure with the same key. */
export interface CommitOptions {
  /** Replace the earlier failure's name with this draft's (a summary line with the fuller name). */
  rename?: boolean;
}

export class FailureCollector {
  readonly limits: DigestLimits;
  readonly root: string | undefined;
  private readonly failures: FailureBlock[] = [];
  private readonly byKey = new Map<string, FailureBlock>();
  /** Hashes of the keys of failures counted past `maxFailures`. */
  private readonly overflowKeys = new Set<number>();
  /** Failures that keep their full message and stack. */
  private readonly detailed = new Set<FailureBlock>();
  /** Failures of the generic fallback, kept apart: they count only when no runner was recognized. */
  private readonly fallback: FailureBlock[] = [];
  private fallbackTotal = 0;
  private total = 0;
  private readonly runnersSeen: RunnerName[] = [];
  private readonly testCounts = new Map<RunnerName, number>();
  private readonly seeds = new Map<RunnerName, string>();

  constructor(limits: DigestLimits, root?: string) {
    this.limits = limits;
    this.root = root;
  }

  /** A new draft; nothing is counted until it is committed. */
  draft(runner: RunnerName, name: string, logLine: number, key: string = name): FailureDraft {
    return {
      runner,
      name: detached(clip(name.trim(), this.limits.nameCharacters)),
      key: detached(key),
      logLine,
      anchors: [],
      messageLines: [],
      messageCharacters: 0,
      stack: [],
    };
  }

  /** Gives the draft its name (and key, by default the name) once the parser knows it. */
  rename(draft: FailureDraft, name: string, key: string = name): void {
    draft.name = detached(clip(name.trim(), this.limits.nameCharacters));
    draft.key = detached(key);
  }

  /** Adds one line of message (error text, diff), within the per-failure bounds. */
  message(draft: FailureDraft, line: string): void {
    if (draft.messageLines.length >= this.limits.messageLines) return;
    if (draft.messageCharacters >= this.limits.messageCharacters) return;
    const kept = detached(clip(line, this.limits.messageCharacters - draft.messageCharacters));
    draft.messageLines.push(kept);
    draft.messageCharacters += kept.length + 1;
  }

  /**
   * Adds one stack frame (trimmed), within bounds, with the anchors it names; only frames that name a
   * project file are kept: runtime and dependency frames are noise to whoever fixes the failure.
   */
  frame(draft: FailureDraft, line: string): void {
    const anchors = findAnchors(line, this.root);
    if (anchors.length === 0) return;
    if (draft.stack.length < this.limits.stackFrames) draft.stack.push(detached(clip(line.trim(), 300)));
    for (const anchor of anchors) addAnchor(draft.anchors, anchor, this.limits.anchors);
  }

  /** Adds the project anchors named in `text`. */
  anchorsIn(draft: FailureDraft, text: string): void {
    if (draft.anchors.length >= this.limits.anchors) return;
    for (const anchor of findAnchors(text, this.root)) addAnchor(draft.anchors, anchor, this.limits.anchors);
  }

  /** Adds one anchor when `file` is a project path and `line` a positive line number. */
  anchor(draft: FailureDraft, file: string, line: number): void {
    const anchor = projectAnchor(file, line, this.root);
    if (anchor) addAnchor(draft.anchors, anchor, this.limits.anchors);
  }

  /** Counts the draft as a failure (or merges it into the earlier one with the same runner and key). */
  commit(draft: FailureDraft, options: CommitOptions = {}): void {
    this.noteRunner(draft.runner);
    if (draft.runner === "generic") {
      this.fallbackTotal++;
      if (this.fallback.length < this.limits.maxFailures)
        this.fallback.push(this.block(draft, this.fallback));
      return;
    }
    const mapKey = `${draft.runner}\u0000${draft.key}`;
    const earlier = this.byKey.get(mapKey);
    if (earlier) {
      this.merge(earlier, draft, options);
      return;
    }
    if (this.failures.length >= this.limits.maxFailures) {
      // Past the limit only a hash of the key is kept, so that a failure reported twice counts once.
      const hash = hashOf(mapKey);
      if (this.overflowKeys.has(hash)) return;
      if (this.overflowKeys.size < overflowKeysKept) this.overflowKeys.add(hash);
      this.total++;
      return;
    }
    this.total++;
    const block = this.block(draft, this.failures);
    this.failures.push(block);
    this.byKey.set(mapKey, block);
  }

  /** True once a failure of a recognized runner (not the generic fallback) was committed. */
  hasRunnerFailures(): boolean {
    return this.total > 0;
  }

  /** Records that `runner`'s output was recognized, even if nothing failed. */
  noteRunner(runner: RunnerName): void {
    if (!this.runnersSeen.includes(runner)) this.runnersSeen.push(runner);
  }

  /** Adds `count` executed tests to `runner`'s total. */
  countTests(runner: RunnerName, count: number): void {
    if (!Number.isFinite(count) || count < 0) return;
    this.noteRunner(runner);
    this.testCounts.set(runner, (this.testCounts.get(runner) ?? 0) + count);
  }

  /** Records the random seed `runner` printed; it is given to that runner's failures. */
  seed(runner: RunnerName, seed: string): void {
    this.seeds.set(runner, seed);
  }

  /** The digest of everything committed so far. */
  result(lines: number, logPath?: string): Digest {
    const useFallback = this.total === 0 && this.fallbackTotal > 0;
    const failures = useFallback ? this.fallback : this.failures;
    failures.sort((left, right) => left.logLine - right.logLine);
    failures.forEach((failure, index) => {
      failure.number = index + 1;
      const seed = this.seeds.get(failure.runner);
      if (seed && !failure.seed) failure.seed = seed;
    });
    const runners = this.runnersSeen.filter((runner) => (runner === "generic" ? useFallback : true));
    let testsExecuted: number | undefined;
    for (const count of this.testCounts.values()) testsExecuted = (testsExecuted ?? 0) + count;
    return {
      ...(logPath !== undefined ? { logPath } : {}),
      runners,
      failures,
      totalFailures: useFallback ? this.fallbackTotal : this.total,
      ...(testsExecuted !== undefined ? { testsExecuted } : {}),
      lines,
    };
  }

  private block(draft: FailureDraft, list: FailureBlock[]): FailureBlock {
    const detailed = list.length < this.limits.detailedFailures;
    const message = trimBlankLines(draft.messageLines);
    const block: FailureBlock = {
      number: 0,
      runner: draft.runner,
      name: draft.name,
      anchors: draft.anchors,
      message: detailed ? message.join("\n") : clip(message[0] ?? "", 200),
      stack: detailed ? draft.stack : [],
      ...(draft.seed ? { seed: draft.seed } : {}),
      logLine: draft.logLine,
    };
    if (detailed) this.detailed.add(block);
    return block;
  }

  private merge(earlier: FailureBlock, draft: FailureDraft, options: CommitOptions): void {
    if (options.rename) earlier.name = draft.name;
    for (const anchor of draft.anchors) addAnchor(earlier.anchors, anchor, this.limits.anchors);
    const detailed = this.detailed.has(earlier);
    if (!earlier.message && draft.messageLines.length > 0) {
      const message = trimBlankLines(draft.messageLines);
      earlier.message = detailed ? message.join("\n") : clip(message[0] ?? "", 200);
    }
    if (detailed && earlier.stack.length === 0) earlier.stack = draft.stack;
  }
}

/** How many keys of failures past `maxFailures` are remembered (as 32-bit hashes) to count repeats once. */
const overflowKeysKept = 1_000_000;

/** FNV-1a over UTF-16 code units. */
function hashOf(text: string): number {
  let hash = 0x811c9dc5;
  for (let index = 0; index < text.length; index++) {
    hash ^= text.charCodeAt(index);
    hash = Math.imul(hash, 0x01000193);
  }
  return hash >>> 0;
}

function addAnchor(anchors: Anchor[], anchor: Anchor, limit: number): void {
  if (anchors.length >= limit) return;
  if (anchors.some((known) => known.file === anchor.file && known.line === anchor.line)) return;
  anchors.push({ file: detached(anchor.file), line: anchor.line });
}

/**
 * A copy of `text` that shares no memory with it. Lines are slices of the 64 KiB piece of log they
 * came from, and V8 keeps the whole piece alive for as long as a slice lives: a digest that kept a
 * name from each piece would hold the log in memory.
 */
export function detached(text: string): string {
  return Buffer.from(text, "utf8").toString("utf8");
}

/** The lines without blank lines around them, without trailing spaces, dedented by their common indentation. */
function trimBlankLines(lines: string[]): string[] {
  let start = 0;
  let end = lines.length;
  while (start < end && !lines[start].trim()) start++;
  while (end > start && !lines[end - 1].trim()) end--;
  const kept = lines.slice(start, end).map((line) => line.trimEnd());
  let common = Number.POSITIVE_INFINITY;
  for (const line of kept) if (line) common = Math.min(common, line.length - line.trimStart().length);
  return common > 0 && common !== Number.POSITIVE_INFINITY ? kept.map((line) => line.slice(common)) : kept;
}

/** `text` cut to at most `limit` characters, with an ellipsis when cut. */
export function clip(text: string, limit: number): string {
  if (text.length <= limit) return text;
  return limit <= 1 ? text.slice(0, Math.max(limit, 0)) : `${text.slice(0, limit - 1)}…`;
}
