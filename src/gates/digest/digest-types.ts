/**
 * The shapes of a failure digest: what a gate's log says failed, where, and why, in a bounded form
 * that a brief can quote. Produced by `digestLog` / `createDigestParser`, rendered by `renderDigest`.
 */

/** The output formats the digest recognizes; `generic` is the fallback for anything else. */
export type RunnerName =
  | "node-test"
  | "vitest"
  | "jest"
  | "mocha"
  | "pytest"
  | "unittest"
  | "go-test"
  | "cargo-test"
  | "junit-xml"
  | "exunit"
  | "rspec"
  | "tsc"
  | "eslint"
  | "biome"
  | "generic";

/** A place in the project: `file` relative to the digest's root when it lies under it; `line` 1-based. */
export interface Anchor {
  file: string;
  line: number;
}

/** One failure, numbered in the order the log first mentions it. */
export interface FailureBlock {
  /** 1-based, in log order. */
  number: number;
  runner: RunnerName;
  /** The full nested name as the runner prints it (suites joined with ` > ` where the runner nests). */
  name: string;
  /** Project files and lines the failure points at (stack frames of the test and the code under test). */
  anchors: Anchor[];
  /** The error message and diff, bounded; only its first line past `DigestLimits.detailedFailures`. */
  message: string;
  /** The first stack frames that name project files, bounded; none past `DigestLimits.detailedFailures`. */
  stack: string[];
  /** The random seed the runner printed for this run, when it printed one. */
  seed?: string;
  /** The 1-based line of the log where the failure's report starts. */
  logLine: number;
}

/** What a log says failed. */
export interface Digest {
  /** The log the digest was made from, when it came from a file. */
  logPath?: string;
  /** The runners whose output was recognized, in the order first seen. */
  runners: RunnerName[];
  /** The failures kept (at most `DigestLimits.maxFailures`), in log order. */
  failures: FailureBlock[];
  /** Every failure recognized, including those past `maxFailures`. */
  totalFailures: number;
  /** Tests that ran (passed or failed, not skipped), summed over the runners that print a count. */
  testsExecuted?: number;
  /** Lines in the log. */
  lines: number;
  /** Why the log could not be read (the digest is then empty). */
  readError?: string;
}

/** Bounds that keep a digest small whatever the log holds. */
export interface DigestLimits {
  /** Failures whose name and anchors are kept; the rest are only counted. Default 10,000. */
  maxFailures: number;
  /** Failures that keep their message and stack; later ones keep the first message line. Default 200. */
  detailedFailures: number;
  /** Lines of message kept per failure. Default 40. */
  messageLines: number;
  /** Characters of message kept per failure. Default 4,000. */
  messageCharacters: number;
  /** Stack frames kept per failure. Default 6. */
  stackFrames: number;
  /** Anchors kept per failure. Default 5. */
  anchors: number;
  /** Characters of a name kept. Default 300. */
  nameCharacters: number;
  /** Lines a parser reads after a failure's first line before it stops collecting details. Default 120. */
  blockLines: number;
  /** Bytes of one log line looked at; the rest of a longer line is skipped. Default 64 KiB. */
  lineBytes: number;
}

/** The default bounds, see `DigestLimits`. */
export const defaultDigestLimits: DigestLimits = {
  maxFailures: 10_000,
  detailedFailures: 200,
  messageLines: 40,
  messageCharacters: 4000,
  stackFrames: 6,
  anchors: 5,
  nameCharacters: 300,
  blockLines: 120,
  lineBytes: 64 * 1024,
};

/** How to digest a log. */
export interface DigestOptions {
  /** Absolute folder the log's paths are relative to (the gate's worktree); anchors under it are made relative. */
  root?: string;
  /** Recorded in the digest as `logPath`. */
  logPath?: string;
  limits?: Partial<DigestLimits>;
}
