/**
 * `tests-excluded` by narrowing: a runner's collection settings (pytest's `testpaths` and
 * `python_files`, mocha's `spec`, jest's `testMatch`, `testRegex` and `roots`, vitest's `include`,
 * Playwright's `testDir`) losing an entry that the change does not add back anywhere. Widening (an entry
 * added) and reformatting are not flagged. `include` counts only in test-runner configuration (a
 * tsconfig's `include` is not a test collection). Pure.
 */

import { excerpt, type TamperFlag } from "../../core/tamper-flag.ts";
import { enclosingOpener, opensContainer, settingOn, valuesIn } from "./excluded-tests.ts";
import { Multiset, type ScreenFile, type ScreenLine } from "./lexed-diff.ts";

/** Collection settings (normalized: lower case, no `-` or `_`). */
const inclusionSetting =
  /^(?:testpaths|pythonfiles|pythonclasses|pythonfunctions|spec|specfiles|specdir|testmatch|testregex|roots|include|testdir|testfiles)$/;
const runnerOnly = /^include$/;

interface Entry {
  key: string;
  name: string;
  value: string;
  line: ScreenLine;
  file: ScreenFile;
  hunk: number;
}

/** One flag per hunk that drops collection entries not re-added anywhere in the change. */
export function screenNarrowedInclusions(files: readonly ScreenFile[]): TamperFlag[] {
  const screened = files.filter(
    (file) => file.tamper?.category === "test-config" || file.tamper?.category === "manifest",
  );
  const added = new Multiset();
  const removed: Entry[] = [];
  const addedLines = new Map<string, ScreenLine[]>();
  for (const file of screened) {
    for (const [hunkIndex, hunk] of file.hunks.entries()) {
      for (const [sign, side] of [
        ["-", hunk.oldSide],
        ["+", hunk.newSide],
      ] as const) {
        for (const [index, line] of side.entries()) {
          if (line.sign !== sign) continue;
          for (const entry of inclusionsOf(side, index, file)) {
            const key = `${entry.name.toLowerCase()} ${entry.value}`;
            if (sign === "+") {
              added.add(key);
              const at = `${file.path}\u0000${hunkIndex}\u0000${entry.name.toLowerCase()}`;
              addedLines.set(at, [...(addedLines.get(at) ?? []), line]);
            } else removed.push({ key, ...entry, line, file, hunk: hunkIndex });
          }
        }
      }
    }
  }
  const droppedByHunk = new Map<string, Entry[]>();
  for (const entry of removed) {
    if (added.take(entry.key)) continue;
    const hunk = `${entry.file.path}\u0000${entry.hunk}`;
    droppedByHunk.set(hunk, [...(droppedByHunk.get(hunk) ?? []), entry]);
  }
  return [...droppedByHunk.values()].map((entries) => {
    const [first] = entries;
    const replacement = addedLines.get(
      `${first.file.path}\u0000${first.hunk}\u0000${first.name.toLowerCase()}`,
    )?.[0];
    const values = [...new Set(entries.map((entry) => `\`${excerpt(entry.value)}\``))].slice(0, 5).join(", ");
    return {
      kind: "tests-excluded",
      file: first.file.path,
      line: replacement ? replacement.newLine : first.line.oldLine,
      side: replacement ? "new" : "old",
      detail: `narrows \`${first.name}\`: no longer collects ${values}${replacement ? `: ${excerpt(replacement.uncommented)}` : ""}`,
    };
  });
}

/** The collection entries on `side[index]`: a setting's values, or an item of an enclosing setting's list. */
function inclusionsOf(
  side: readonly ScreenLine[],
  index: number,
  file: ScreenFile,
): { name: string; value: string }[] {
  const names = file.tamper?.category === "test-config" ? inclusionSetting : notRunnerOnly;
  const setting = settingOn(side[index], names);
  if (setting) return valuesIn(setting.value).map((value) => ({ name: setting.name, value }));
  const opener = enclosingOpener(side, index);
  const parent = opener === undefined ? undefined : settingOn(side[opener], names);
  if (parent && (opensContainer(parent.value) || valuesIn(parent.value).length === 0)) {
    return valuesIn(side[index].uncommented).map((value) => ({ name: parent.name, value }));
  }
  return [];
}

const notRunnerOnly = {
  test: (name: string) => inclusionSetting.test(name) && !runnerOnly.test(name),
} as RegExp;
