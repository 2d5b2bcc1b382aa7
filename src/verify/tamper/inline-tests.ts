/**
 * `inline-tests-changed`: test code changed inside an ordinary source file, which the path patterns of
 * the tamper set cannot see: a Rust `#[cfg(test)]` module or `#[test]` function, or a Vitest in-source
 * test block (`if (import.meta.vitest)`). One flag per file, at its first changed line there. Pure.
 */

import { excerpt, type TamperFlag } from "../../core/tamper-flag.ts";
import type { ScreenFile, ScreenHunk } from "./lexed-diff.ts";

const rustTestCode = /#\[\s*cfg\s*\(\s*test\s*\)\s*\]|#\[\s*(?:\w+::)*test\b|^\s*mod\s+tests?\b/;
const rustTestSection = /\bmod\s+tests?\b|#\[\s*cfg\s*\(\s*test\s*\)\s*\]/;
const vitestInSource = /\bimport\s*\.\s*meta\s*\.\s*vitest\b/;

/** Flags the first change in a hunk that shows test code, for source files outside the tamper set. */
export function screenInlineTests(file: ScreenFile): TamperFlag[] {
  if (file.tamper?.category === "tests") return [];
  const marker =
    file.language === "rust" ? rustTestCode : file.language === "javascript" ? vitestInSource : undefined;
  if (!marker) return [];
  for (const hunk of file.hunks) {
    if (!showsTestCode(hunk, marker)) continue;
    const first = hunk.lines.find((line) => line.sign !== " ");
    if (!first) continue;
    const added = first.sign === "+";
    return [
      {
        kind: "inline-tests-changed",
        file: file.path,
        line: added ? first.newLine : first.oldLine,
        side: added ? "new" : "old",
        detail: `test code changed in a source file: ${excerpt(first.uncommented)}`,
      },
    ];
  }
  return [];
}

/** Whether `hunk` of `file` (an ordinary source file) shows inline test code. */
export function showsInlineTests(file: ScreenFile, hunk: ScreenHunk): boolean {
  const marker =
    file.language === "rust" ? rustTestCode : file.language === "javascript" ? vitestInSource : undefined;
  return marker !== undefined && showsTestCode(hunk, marker);
}

function showsTestCode(hunk: ScreenHunk, marker: RegExp): boolean {
  if (marker === rustTestCode && rustTestSection.test(hunk.section)) return true;
  return (
    hunk.lines.some((line) => marker.test(line.code)) || hunk.oldSide.some((line) => marker.test(line.code))
  );
}
