/**
 * `test-deleted`: a test function or case removed and not re-added. A test counts as re-added when its
 * file adds a test of the same name (moved or edited), when its file adds a test under another name
 * whose body is the same or mostly the same (a rename, perhaps into a new group: what else changed in
 * it is left to the other screens, such as deleted assertions), or when another file adds it under the
 * same name with the same body (moved to another file). Pure.
 */

import { excerpt, type TamperFlag } from "../../core/tamper-flag.ts";
import { compact, type ScreenFile, type ScreenLine } from "./lexed-diff.ts";
import { findTestDefinition } from "./test-definitions.ts";

/** A test definition among one side's changed lines, with the changed lines of its body. */
interface ChangedTest {
  file: string;
  name: string;
  line: ScreenLine;
  /** The definition line without the name, then the body's changed lines; whitespace removed. */
  body: string;
  bodyLines: ScreenLine[];
  /** The body's changed lines that are long enough to tell tests apart, whitespace removed. */
  bodyKeys: string[];
}

/** Share of a removed test's distinctive body lines an added test must hold to count as its rename. */
export const renameSimilarity = 0.6;

/** Body lines shorter than this (`end`, `});`) say nothing about which test they belong to. */
const distinctiveLength = 8;

/** The flags, and the removed lines that belong to the deleted tests (not flagged again as assertions). */
export interface DeletedTests {
  flags: TamperFlag[];
  deletedLines: Set<ScreenLine>;
}

/** Screens every file of the diff together, so that a test moved between files is not a deletion. */
export function screenDeletedTests(files: readonly ScreenFile[]): DeletedTests {
  const removedByFile = files.map((file) => changedTests(file, "-"));
  const addedByFile = files.map((file) => changedTests(file, "+"));
  const addedAnywhere = new Set(addedByFile.flat().map((test) => `${test.name}\u0000${test.body}`));
  const flags: TamperFlag[] = [];
  const deletedLines = new Set<ScreenLine>();
  for (const [index, removed] of removedByFile.entries()) {
    const removedNames = new Set(removed.map((test) => test.name));
    const addedNames = new Set(addedByFile[index].map((test) => test.name));
    // Added tests under a new name: the candidates for a rename, each used once.
    const candidates = addedByFile[index].filter((test) => !removedNames.has(test.name));
    const used = new Set<ChangedTest>();
    const byKey = new Map<string, ChangedTest[]>();
    for (const test of candidates) {
      for (const key of new Set(test.bodyKeys)) byKey.set(key, [...(byKey.get(key) ?? []), test]);
    }
    for (const test of removed) {
      if (addedNames.has(test.name)) continue;
      const renamed = renameOf(test, candidates, byKey, used);
      if (renamed) {
        used.add(renamed);
        continue;
      }
      if (addedAnywhere.has(`${test.name}\u0000${test.body}`)) continue;
      flags.push({
        kind: "test-deleted",
        file: test.file,
        line: test.line.oldLine,
        side: "old",
        detail: `test "${excerpt(test.name)}" removed: ${excerpt(test.line.uncommented)}`,
      });
      deletedLines.add(test.line);
      for (const line of test.bodyLines) deletedLines.add(line);
    }
  }
  return { flags, deletedLines };
}

/**
 * The unused candidate that renames `test`: one with the same body, or else the one holding the most of
 * its distinctive body lines, if that is at least `renameSimilarity` of them.
 */
function renameOf(
  test: ChangedTest,
  candidates: readonly ChangedTest[],
  byKey: ReadonlyMap<string, ChangedTest[]>,
  used: ReadonlySet<ChangedTest>,
): ChangedTest | undefined {
  const same = candidates.find((candidate) => !used.has(candidate) && candidate.body === test.body);
  if (same || test.bodyKeys.length === 0) return same;
  const shared = new Map<ChangedTest, number>();
  for (const key of new Set(test.bodyKeys)) {
    for (const candidate of byKey.get(key) ?? []) {
      if (!used.has(candidate)) shared.set(candidate, (shared.get(candidate) ?? 0) + 1);
    }
  }
  let best: ChangedTest | undefined;
  let bestCount = 0;
  for (const [candidate, count] of shared) {
    if (count > bestCount) [best, bestCount] = [candidate, count];
  }
  return bestCount >= renameSimilarity * new Set(test.bodyKeys).size ? best : undefined;
}

/** The tests defined on `sign` lines of `file` (`-` removed, `+` added). */
function changedTests(file: ScreenFile, sign: "-" | "+"): ChangedTest[] {
  const language = file.language;
  if (!language) return [];
  const tests: ChangedTest[] = [];
  for (const hunk of file.hunks) {
    const side = sign === "-" ? hunk.oldSide : hunk.newSide;
    for (const [index, line] of side.entries()) {
      if (line.sign !== sign) continue;
      const definition = findTestDefinition(language, side, index);
      if (!definition) continue;
      const bodyLines = bodyOf(side, index, sign, (candidate) =>
        findTestDefinition(language, side, candidate),
      );
      const head = definition.name === "" ? line.uncommented : line.uncommented.replace(definition.name, "");
      tests.push({
        file: file.path,
        name: definition.name,
        line,
        body: [compact(head), ...bodyLines.map((body) => compact(body.uncommented))].join("\n"),
        bodyLines,
        bodyKeys: bodyLines
          .map((body) => compact(body.uncommented))
          .filter((key) => key.length >= distinctiveLength),
      });
    }
  }
  return tests;
}

/**
 * The changed lines after `side[start]` up to the test's end: the next line indented no deeper than the
 * definition (a closing `});` or `end` is kept), or the next test definition.
 */
function bodyOf(
  side: readonly ScreenLine[],
  start: number,
  sign: "-" | "+",
  definesTest: (index: number) => unknown,
): ScreenLine[] {
  const indent = indentation(side[start].raw);
  const lines: ScreenLine[] = [];
  for (let index = start + 1; index < side.length; index++) {
    const line = side[index];
    if (definesTest(index)) break;
    const blank = line.code.trim() === "";
    const closes = !blank && indentation(line.raw) <= indent;
    if (closes && !/^\s*[})\]]|^\s*end\b/.test(line.code)) break;
    if (line.sign === sign && !blank) lines.push(line);
    if (closes) break;
  }
  return lines;
}

function indentation(text: string): number {
  return /^\s*/.exec(text)?.[0].length ?? 0;
}
