/**
 * Where a test function or case is defined, per language, and its name: `it("adds", …)`, `def test_x`,
 * `func TestX(t *testing.T)`, `#[test] fn x`, `@Test void x()`, `it "adds" do`, `test "adds" do`. Pure.
 */

import type { ScreenLine } from "./lexed-diff.ts";
import type { SourceLanguage } from "./source-languages.ts";

/** A test definition found on a line: the test's name as written. */
export interface TestDefinition {
  name: string;
}

/** Calls whose first argument, a string literal, names a test case. */
const namedCall: Partial<Record<SourceLanguage, RegExp>> = {
  javascript: /(?<![\w$.])(?:it|test|specify)(?:\s*\.\s*\w+)*\s*\(\s*(?=["'`])/,
  ruby: /^\s*(?:it|specify|example|scenario|test)\s*\(?\s*(?=["'])/,
  elixir: /^\s*(?:test|property)\s*\(?\s*(?=["'])/,
};

/** Definitions named by an identifier. */
const namedFunction: Partial<Record<SourceLanguage, RegExp>> = {
  python: /^\s*(?:async\s+)?def\s+(test\w*)\s*\(/,
  go: /^func\s+((?:Test|Fuzz|Benchmark|Example)\w*)\s*\(/,
  ruby: /^\s*def\s+(test_\w+)/,
};

/** Attributes (Rust) and annotations (Java, Kotlin) that make the next function a test. */
const testAttribute: Partial<Record<SourceLanguage, RegExp>> = {
  rust: /#\[\s*(?:(?:\w+::)*test|rstest|test_case|quickcheck|proptest)\b/,
  java: /@\s*(?:Test|ParameterizedTest|RepeatedTest|TestFactory|TestTemplate|Property)\b/,
};

const attributedFunction: Partial<Record<SourceLanguage, RegExp>> = {
  rust: /^\s*(?:pub(?:\([^)]*\))?\s+)?(?:async\s+)?fn\s+(\w+)/,
  java: /(?:\bvoid|\bfun)\s+`?([\w ]+?)`?\s*\(/,
};

/** Lines that may sit between an attribute and its function: other attributes, blanks. */
const attributeLine = /^\s*(?:#\[|@|$)/;

/**
 * The test defined on `side[index]`, if any. `side` is one side of a hunk (old or new); for Rust and
 * Java the attribute may be on an earlier line of the same side.
 */
export function findTestDefinition(
  language: SourceLanguage,
  side: readonly ScreenLine[],
  index: number,
): TestDefinition | undefined {
  const line = side[index];
  const call = namedCall[language]?.exec(line.code);
  if (call) {
    const start = call.index + call[0].length;
    return { name: stringLiteralAt(line.uncommented, start) };
  }
  const named = namedFunction[language]?.exec(line.code);
  if (named) return { name: named[1] };
  const attributed = attributedFunction[language]?.exec(line.code);
  const attribute = testAttribute[language];
  if (attributed && attribute) {
    if (language === "java" && /^test/.test(attributed[1]) && /\bpublic\b/.test(line.code)) {
      return { name: attributed[1].trim() }; // JUnit 3: public void testSomething()
    }
    if (attribute.test(line.code.slice(0, attributed.index))) return { name: attributed[1].trim() };
    for (let previous = index - 1; previous >= 0 && attributeLine.test(side[previous].code); previous--) {
      if (attribute.test(side[previous].code)) return { name: attributed[1].trim() };
    }
  }
  return undefined;
}

/** The string literal starting at `start` (its quote), contents only; up to the line's end if unclosed. */
function stringLiteralAt(text: string, start: number): string {
  const quote = text[start];
  let name = "";
  for (let index = start + 1; index < text.length; index++) {
    if (text[index] === "\\") {
      name += text.slice(index, index + 2);
      index++;
    } else if (text[index] === quote) {
      return name;
    } else {
      name += text[index];
    }
  }
  return name;
}
