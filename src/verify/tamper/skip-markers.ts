/**
 * `skip-marker-added`: a change that adds a marker which skips, focuses (`only`), defers (`todo`) or
 * expects the failure of a test, per language. Markers are matched in code only (never in comments or
 * string literals); a marker line that was only moved or re-indented within its file is not flagged. Pure.
 */

import { excerpt, type TamperFlag } from "../../core/tamper-flag.ts";
import { compact, Multiset, type ScreenFile } from "./lexed-diff.ts";
import type { SourceLanguage } from "./source-languages.ts";

/** Marker patterns per language, matched against a line's code view. */
const markers: Partial<Record<SourceLanguage, RegExp[]>> = {
  javascript: [
    // it.skip(, describe.only(, test.todo(, test.fixme( (Playwright), it.skipIf( (Vitest), test.failing(
    /(?<![\w$.])(?:it|test|describe|suite|context|specify|bench)\s*\.\s*(?:skip|only|todo|fixme|skipIf|runIf|fails|failing)\b/,
    /(?<![\w$.])(?:xit|xtest|xdescribe|xcontext|xspecify|xsuite|fit|fdescribe|fcontext)\s*\(/,
    // node:test's t.skip() and t.todo(), Mocha's this.skip()
    /(?<![\w$.])(?:t|this|context|ctx)\s*\.\s*(?:skip|todo)\s*\(/,
  ],
  python: [
    /(?<![\w])(?:pytest\s*\.\s*)?mark\s*\.\s*(?:skip|skipif|xfail)\b/,
    /\bunittest\s*\.\s*(?:skip|skipIf|skipUnless|expectedFailure)\b/,
    /@\s*(?:skip|skipIf|skipUnless|expectedFailure)\b/,
    /\bpytest\s*\.\s*(?:skip|xfail|importorskip)\s*\(/,
    /\.\s*skipTest\s*\(/,
    /\braise\s+(?:unittest\s*\.\s*)?SkipTest\b/,
  ],
  go: [/\.\s*Skip(?:f|Now)?\s*\(/],
  rust: [/#\[\s*ignore\b/, /#\[\s*cfg_attr\s*\(.*\bignore\b/],
  java: [
    /@\s*(?:Disabled\w*|Ignore|EnabledIf\w*|EnabledOn\w*)\b/,
    /@\s*Test\s*\(.*\benabled\s*=\s*false\b/,
    /\bassume(?:True|False|That)\s*\(/,
  ],
  ruby: [
    /(?<![\w.])(?:xit|xspecify|xexample|xscenario|xdescribe|xcontext|xfeature|fit|fdescribe|fcontext)\b/,
  ],
  elixir: [/@\s*(?:module|describe)?tag\s+(?::skip\b|skip:|:pending\b)/],
};

/**
 * Markers too common as ordinary words to look for outside test files: Node's test options (`{ skip:
 * true }`, `{ todo: "why" }`), Minitest's and RSpec's `skip` and `pending` statements, RSpec metadata.
 */
const testFileMarkers: Partial<Record<SourceLanguage, RegExp[]>> = {
  javascript: [/(?<![\w$])(?:skip|todo|only)\s*:\s*(?:true\b|["'`])/],
  ruby: [
    /^\s*(?:skip|pending)\b(?!\s*[=:.(]?\s*[=:])/,
    /^\s*(?:it|specify|example|scenario|describe|context|feature|test)\b.*,\s*(?::(?:skip|pending|focus)\b|(?<![\w])(?:skip|pending|focus):)/,
  ],
};

/** The first marker of `language` on `code`, if any. */
export function findSkipMarker(
  language: SourceLanguage,
  code: string,
  inTestFile: boolean,
): RegExpExecArray | undefined {
  for (const pattern of markers[language] ?? []) {
    const match = pattern.exec(code);
    if (match) return match;
  }
  if (!inTestFile) return undefined;
  for (const pattern of testFileMarkers[language] ?? []) {
    const match = pattern.exec(code);
    if (match) return match;
  }
  return undefined;
}

/** Flags each added line that carries a marker beyond those its file's removed lines carried. */
export function screenSkipMarkers(file: ScreenFile): TamperFlag[] {
  const language = file.language;
  if (!language || !markers[language]) return [];
  const inTestFile = file.tamper?.category === "tests";
  const removed = new Multiset();
  for (const hunk of file.hunks) {
    for (const line of hunk.lines) {
      if (line.sign === "-" && findSkipMarker(language, line.code, inTestFile))
        removed.add(compact(line.code));
    }
  }
  const flags: TamperFlag[] = [];
  for (const hunk of file.hunks) {
    for (const line of hunk.lines) {
      if (line.sign !== "+") continue;
      const marker = findSkipMarker(language, line.code, inTestFile);
      if (!marker || removed.take(compact(line.code))) continue;
      flags.push({
        kind: "skip-marker-added",
        file: file.path,
        line: line.newLine,
        side: "new",
        detail: `new \`${excerpt(marker[0])}\` marker: ${excerpt(line.uncommented)}`,
      });
    }
  }
  return flags;
}
