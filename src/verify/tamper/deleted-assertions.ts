/**
 * `assertion-deleted`: a removed line of test code holding an assertion (assert, expect, should, t.Error,
 * assert_eq!, assertEquals, refute…) whose code is not re-added anywhere in the change. Test code is a
 * test file, a file of `scope.protect`, or a hunk of inline tests (a Rust `#[cfg(test)]` module); an
 * `assert` removed from ordinary code is not flagged. An assertion moved to another place or file,
 * re-indented or re-wrapped over several lines is not flagged; one commented out or edited is.
 * Assertions inside a deleted test are left to its `test-deleted` flag. Pure.
 */

import { excerpt, type TamperFlag } from "../../core/tamper-flag.ts";
import { showsInlineTests } from "./inline-tests.ts";
import { changeRuns, compact, type ScreenFile, type ScreenLine } from "./lexed-diff.ts";
import { type SourceLanguage, testLanguages } from "./source-languages.ts";

/** Assertion patterns, matched against a line's code view (comments and string contents blanked). */
const assertionPatterns: Partial<Record<SourceLanguage, RegExp>> = {
  javascript:
    /(?<![\w$.])(?:assert|expect|should)\b|\.\s*should\b|(?<![\w$.])t\s*\.\s*(?:is|not|ok|notOk|true|false|equal|notEqual|same|notSame|deepEqual|notDeepEqual|strictEqual|match|throws|rejects|doesNotThrow|snapshot|truthy|falsy|like|assert)\s*\(/,
  python:
    /(?<![\w.])assert\b|\.\s*assert\w*\s*\(|(?<![\w.])assert_\w+\s*\(|\bpytest\s*\.\s*(?:raises|warns|approx)\b/,
  go: /(?<![\w.])(?:t|b|f|s)\s*\.\s*(?:Error|Errorf|Fatal|Fatalf|Fail|FailNow)\b|(?<![\w.])(?:assert|require)\s*\.\s*\w+\s*\(|\.\s*(?:Expect|Assert)\s*\(/,
  rust: /(?<![\w.])(?:debug_)?assert(?:_eq|_ne|_matches)?!|(?<![\w.])prop_assert\w*!|#\[\s*should_panic\b/,
  java: /(?<![\w.])(?:assert\w*|verify|fail)\s*\(|(?<![\w.])assert\s|\.\s*(?:assert\w*|should\w*)\s*\(/,
  ruby: /(?<![\w.])(?:assert\w*|refute\w*|expect|is_expected|must_\w+|wont_\w+|should(?:_not)?)\b|\.\s*(?:to|not_to|to_not|must_\w+|wont_\w+)\b/,
  elixir: /(?<![\w.])(?:assert|refute)(?:_\w+)?\b/,
};

/** True when `code` (a code view) holds an assertion of `language`. */
export function hasAssertion(language: SourceLanguage, code: string): boolean {
  return assertionPatterns[language]?.test(code) ?? false;
}

/**
 * Flags removed assertion lines not re-added in any file of the change. `skip` holds removed lines
 * already accounted for (the bodies of deleted tests, assertions whose only change loosened a threshold).
 * A removed assertion whose run of changes adds other assertions is reported as changed, quoting both.
 */
export function screenDeletedAssertions(
  files: readonly ScreenFile[],
  skip: ReadonlySet<ScreenLine>,
): TamperFlag[] {
  const added = indexAddedCode(files);
  const flags: TamperFlag[] = [];
  for (const file of files) {
    const language = file.language;
    if (!language || !testLanguages.has(language)) continue;
    const testFile = file.tamper?.category === "tests" || file.tamper?.category === "protected";
    for (const hunk of file.hunks) {
      if (!testFile && !showsInlineTests(file, hunk)) continue;
      for (const run of changeRuns(hunk)) {
        const removed = run.filter((line) => line.sign === "-" && hasAssertion(language, line.code));
        const replacements = run.filter((line) => line.sign === "+" && hasAssertion(language, line.code));
        for (const [index, line] of removed.entries()) {
          if (skip.has(line)) continue;
          const key = comparable(line.uncommented);
          if (key === "" || reAdded(added, key)) continue;
          const replacement = replacements[Math.min(index, replacements.length - 1)];
          flags.push({
            kind: "assertion-deleted",
            file: file.path,
            line: line.oldLine,
            side: "old",
            detail: replacement
              ? `assertion changed: ${excerpt(line.uncommented)} → ${excerpt(replacement.uncommented)} (line ${replacement.newLine})`
              : `assertion removed: ${excerpt(line.uncommented)}`,
          });
        }
      }
    }
  }
  return flags;
}

/**
 * All added code of the change: each run of consecutive added lines joined without separators (so a
 * statement re-wrapped over several lines reads as one), runs separated by newlines, and where each
 * added line starts, indexed by its first characters.
 */
interface AddedCode {
  text: string;
  lineStarts: Map<string, number[]>;
  allStarts: number[];
  /** Every position where an added line starts: a statement boundary although nothing separates it. */
  boundaries: Set<number>;
}

/** Characters of a line start that index it. */
const prefixLength = 8;

function indexAddedCode(files: readonly ScreenFile[]): AddedCode {
  const chunks: string[] = [];
  let length = 0;
  const lineStarts = new Map<string, number[]>();
  const allStarts: number[] = [];
  for (const file of files) {
    for (const hunk of file.hunks) {
      let inRun = false;
      for (const line of hunk.lines) {
        if (line.sign !== "+") {
          if (inRun) {
            chunks.push("\n");
            length += 1;
          }
          inRun = false;
          continue;
        }
        const code = withoutTrailingCommas(compact(line.uncommented));
        if (code === "") continue;
        // A comma left at the end of the previous line before this closing bracket goes too.
        const previous = chunks.length - 1;
        if (inRun && /^[)\]}]/.test(code) && chunks[previous].endsWith(",")) {
          chunks[previous] = chunks[previous].slice(0, -1);
          length -= 1;
        }
        inRun = true;
        const prefix = code.slice(0, prefixLength);
        const starts = lineStarts.get(prefix) ?? [];
        starts.push(length);
        lineStarts.set(prefix, starts);
        allStarts.push(length);
        chunks.push(code);
        length += code.length;
      }
      if (inRun) {
        chunks.push("\n");
        length += 1;
      }
    }
  }
  return { text: chunks.join(""), lineStarts, allStarts, boundaries: new Set(allStarts) };
}

/**
 * Whether `key` (a removed statement, comparable form) is re-added: it starts where an added line starts
 * and is not the beginning of a longer name or expression there.
 */
function reAdded(added: AddedCode, key: string): boolean {
  const candidates =
    key.length >= prefixLength ? (added.lineStarts.get(key.slice(0, prefixLength)) ?? []) : added.allStarts;
  for (const start of candidates) {
    if (!added.text.startsWith(key, start)) continue;
    const end = start + key.length;
    const after = added.text[end] ?? "\n";
    if (after === "\n" || added.boundaries.has(end)) return true;
    // After a key that ends in a name or a closed call, a name, call, member or operator would extend it.
    if (/[\w$)\]]$/.test(key) && /[\w$.([|&+\-*/%<>=!?]/.test(after)) continue;
    return true;
  }
  return false;
}

/** Whitespace, a trailing `;` or `,`, and commas before a closing bracket removed. */
function comparable(text: string): string {
  return withoutTrailingCommas(compact(text)).replace(/[;,]+$/, "");
}

/** Commas just before a closing bracket removed (a formatter adds or drops them when re-wrapping). */
function withoutTrailingCommas(text: string): string {
  return text.replace(/,(?=[)\]}])/g, "");
}
