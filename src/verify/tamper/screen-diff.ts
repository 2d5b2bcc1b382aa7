/**
 * The tamper screen of a change: reads the unified diff from base to the graded commit and returns
 * every flag, with file and line, in diff order. Pure (no git, no file system): the caller passes the
 * text of `git diff base..sha`.
 */

import { type TamperFlag, tamperFlagKinds } from "../../core/tamper-flag.ts";
import { type CommandNamedPath, tamperMatcher } from "./classify-files.ts";
import { screenDeletedAssertions } from "./deleted-assertions.ts";
import { screenDeletedTests } from "./deleted-tests.ts";
import { screenExcludedTests } from "./excluded-tests.ts";
import { screenInlineTests } from "./inline-tests.ts";
import { lexDiff } from "./lexed-diff.ts";
import { screenLoosenedThresholds } from "./loosened-thresholds.ts";
import { screenNarrowedInclusions } from "./narrowed-inclusions.ts";
import { screenRenamedTests } from "./renamed-tests.ts";
import { screenSkipMarkers } from "./skip-markers.ts";
import { parseUnifiedDiff } from "./unified-diff.ts";

/** Options of `screenDiff`. */
export interface ScreenDiffOptions {
  /** The spec's `scope.protect` globs: their files are screened as configuration, like the defaults. */
  protect?: readonly string[];
  /** Paths the spec's commands name: a test file a gate names is screened as a test file. */
  named?: readonly CommandNamedPath[];
  /** Most flags of one kind kept per file; the rest are summed up in one last flag. Default 20; 0 = no cap. */
  maximumFlagsPerKind?: number;
}

/**
 * Screens a unified diff (`git diff` output, any context size; more context lets list and docstring
 * detection see further) for skip markers added, assertions and tests deleted, tests excluded,
 * thresholds loosened and test code changed in source files. Never throws for odd input: what it cannot
 * parse it does not flag. Flags are ordered by file (diff order), then kind, then line.
 */
export function screenDiff(diffText: string, options: ScreenDiffOptions = {}): TamperFlag[] {
  const files = lexDiff(
    parseUnifiedDiff(diffText),
    tamperMatcher(options.protect ?? [], options.named ?? []),
  );
  const deletedTests = screenDeletedTests(files);
  const accountedFor = new Set(deletedTests.deletedLines);
  const thresholds = files.flatMap((file) => screenLoosenedThresholds(file, accountedFor));
  const all = [
    ...deletedTests.flags,
    ...thresholds,
    ...screenDeletedAssertions(files, accountedFor),
    ...screenExcludedTests(files),
    ...screenNarrowedInclusions(files),
    ...screenRenamedTests(files),
    ...files.flatMap((file) => [...screenSkipMarkers(file), ...screenInlineTests(file)]),
  ];
  const fileOrder = new Map(files.map((file, index) => [file.path, index]));
  all.sort(
    (left, right) =>
      (fileOrder.get(left.file ?? "") ?? 0) - (fileOrder.get(right.file ?? "") ?? 0) ||
      tamperFlagKinds.indexOf(left.kind) - tamperFlagKinds.indexOf(right.kind) ||
      (left.line ?? 0) - (right.line ?? 0),
  );
  return capPerKind(all, options.maximumFlagsPerKind ?? 20);
}

/** Keeps the first `maximum` flags of each kind per file and replaces the rest by one summary flag. */
function capPerKind(flags: readonly TamperFlag[], maximum: number): TamperFlag[] {
  if (maximum <= 0) return [...flags];
  const counts = new Map<string, number>();
  const summaries = new Map<string, TamperFlag>();
  const result: TamperFlag[] = [];
  for (const flag of flags) {
    const key = `${flag.file}\u0000${flag.kind}`;
    const count = (counts.get(key) ?? 0) + 1;
    counts.set(key, count);
    if (count <= maximum) {
      result.push(flag);
      continue;
    }
    let summary = summaries.get(key);
    if (!summary) {
      summary = { kind: flag.kind, file: flag.file, detail: "" };
      summaries.set(key, summary);
      result.push(summary);
    }
    summary.detail = `${count - maximum} more ${flag.kind} flags in this file, not listed`;
  }
  return result;
}
