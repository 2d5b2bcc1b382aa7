/**
 * Which changed files are in the tamper set (the defaults plus `scope.protect`), and why. Pure.
 */

import picomatch from "picomatch";
import { defaultTamperPatterns, type TamperCategory, testFileNamePatterns } from "./default-patterns.ts";

/** A changed file in the tamper set: its first matching category and the reason a person reads. */
export interface TamperFile {
  file: string;
  category: TamperCategory;
  reason: string;
}

/** Tests a repository-relative path (forward slashes) against the tamper set. */
export type TamperMatcher = (file: string) => TamperFile | undefined;

/**
 * A path one of the spec's commands names (see `command-paths.ts`): a file, a folder (its files match)
 * or a glob, its category and the reason a person reads.
 */
export interface CommandNamedPath {
  pattern: string;
  category: Extract<TamperCategory, "gate-script" | "setup-script" | "tests" | "test-config">;
  reason: string;
}

const options = { dot: true };

const shellScript = /(?:^|\/)[^/.]+$|\.(?:sh|bash|zsh|ksh)$/;

/**
 * The default set's matchers, compiled at the first matcher asked for, not when this module loads: the
 * run's modules load before the maker's first command, the first screen comes after its turn (compiling
 * them cost ~100 ms of CPU on a loaded 2-core machine, on the way to the maker).
 */
let compiledDefaults:
  | {
      testFileName: picomatch.Matcher;
      defaultMatchers: { group: (typeof defaultTamperPatterns)[number]; matches: picomatch.Matcher }[];
    }
  | undefined;

function defaults(): NonNullable<typeof compiledDefaults> {
  compiledDefaults ??= {
    testFileName: picomatch([...testFileNamePatterns], options),
    defaultMatchers: defaultTamperPatterns.map((group) => ({
      group,
      matches: picomatch(group.patterns, options),
    })),
  };
  return compiledDefaults;
}

/**
 * A matcher for the default tamper set plus `protect` (picomatch globs, as in `scope.protect`) plus the
 * paths the spec's commands name. A script a gate runs comes first (whatever folder it is in), unless
 * its name makes it a test file; then the default categories, each with its reason (and a note when
 * `protect` matches too); then the other named paths; a file matched only by `protect` gets
 * `category: "protected"` and names the pattern.
 */
export function tamperMatcher(
  protect: readonly string[] = [],
  named: readonly CommandNamedPath[] = [],
): TamperMatcher {
  const { testFileName, defaultMatchers } = defaults();
  const protectedBy = protect.map((pattern) => ({ pattern, matches: picomatch(pattern, options) }));
  const namedBy = named.map((entry) => ({
    entry,
    matches: picomatch([entry.pattern, `${entry.pattern}/**`], options),
  }));
  return (file) => {
    const script = namedBy.find(
      (matcher) => matcher.entry.category === "gate-script" && matcher.matches(file),
    );
    if (script && (shellScript.test(file) || !testFileName(file))) {
      return { file, category: "gate-script", reason: script.entry.reason };
    }
    const byDefault = defaultMatchers.find((matcher) => matcher.matches(file));
    const byProtect = protectedBy.find((matcher) => matcher.matches(file));
    if (byDefault) {
      const also = byProtect ? ` (also scope.protect: ${byProtect.pattern})` : "";
      return { file, category: byDefault.group.category, reason: `${byDefault.group.reason}${also}` };
    }
    const byCommand = namedBy.find(
      (matcher) => matcher.entry.category !== "gate-script" && matcher.matches(file),
    );
    if (byCommand) return { file, category: byCommand.entry.category, reason: byCommand.entry.reason };
    if (byProtect) return { file, category: "protected", reason: `scope.protect: ${byProtect.pattern}` };
    return undefined;
  };
}

/**
 * The files of `files` that are in the tamper set (defaults plus `protect`), in the order given, each
 * once. Paths are repository-relative with forward slashes, as `git diff --name-only` prints them.
 */
export function classifyTamperFiles(
  files: readonly string[],
  protect: readonly string[] = [],
  named: readonly CommandNamedPath[] = [],
): TamperFile[] {
  const match = tamperMatcher(protect, named);
  const seen = new Set<string>();
  const result: TamperFile[] = [];
  for (const file of files) {
    if (seen.has(file)) continue;
    seen.add(file);
    const found = match(file);
    if (found) result.push(found);
  }
  return result;
}
