/**
 * Which changed files are in the tamper set (the defaults plus `scope.protect`), and why. Pure.
 */

import picomatch from "picomatch";
import { defaultTamperPatterns, type TamperCategory } from "./default-patterns.ts";

/** A changed file in the tamper set: its first matching category and the reason a person reads. */
export interface TamperFile {
  file: string;
  category: TamperCategory;
  reason: string;
}

/** Tests a repository-relative path (forward slashes) against the tamper set. */
export type TamperMatcher = (file: string) => TamperFile | undefined;

const options = { dot: true };

const defaultMatchers = defaultTamperPatterns.map((group) => ({
  group,
  matches: picomatch(group.patterns, options),
}));

/**
 * A matcher for the default tamper set plus `protect` (picomatch globs, as in `scope.protect`). A file
 * in a default category gets that category's reason (and a note when `protect` matches too); a file
 * matched only by `protect` gets `category: "protected"` and names the pattern.
 */
export function tamperMatcher(protect: readonly string[] = []): TamperMatcher {
  const protectedBy = protect.map((pattern) => ({ pattern, matches: picomatch(pattern, options) }));
  return (file) => {
    const byDefault = defaultMatchers.find((matcher) => matcher.matches(file));
    const byProtect = protectedBy.find((matcher) => matcher.matches(file));
    if (byDefault) {
      const also = byProtect ? ` (also scope.protect: ${byProtect.pattern})` : "";
      return { file, category: byDefault.group.category, reason: `${byDefault.group.reason}${also}` };
    }
    if (byProtect) return { file, category: "protected", reason: `scope.protect: ${byProtect.pattern}` };
    return undefined;
  };
}

/**
 * The files of `files` that are in the tamper set (defaults plus `protect`), in the order given, each
 * once. Paths are repository-relative with forward slashes, as `git diff --name-only` prints them.
 */
export function classifyTamperFiles(files: readonly string[], protect: readonly string[] = []): TamperFile[] {
  const match = tamperMatcher(protect);
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
