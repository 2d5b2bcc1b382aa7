/**
 * A parsed diff made ready for the screens: each file with its language and tamper classification, each
 * hunk side lexed (comments and strings told from code), each line with its numbers. Pure.
 */

import type { TamperFile, TamperMatcher } from "./classify-files.ts";
import { type LexedLine, lexRun } from "./lexical-views.ts";
import { type LanguageSyntax, languageOf, languageSyntax, type SourceLanguage } from "./source-languages.ts";
import type { DiffFile } from "./unified-diff.ts";

/** A diff line in its lexical views. Context lines appear in both sides of a hunk. */
export interface ScreenLine extends LexedLine {
  sign: " " | "+" | "-";
  oldLine?: number;
  newLine?: number;
}

/** A hunk: all lines in diff order, and each side on its own (old: context and removed; new: context and added). */
export interface ScreenHunk {
  section: string;
  lines: ScreenLine[];
  oldSide: ScreenLine[];
  newSide: ScreenLine[];
}

/** A file of the diff, ready to screen. `tamper` is set when the file is in the tamper set. */
export interface ScreenFile {
  path: string;
  oldPath: string;
  status: DiffFile["status"];
  language?: SourceLanguage;
  syntax: LanguageSyntax;
  tamper?: TamperFile;
  hunks: ScreenHunk[];
}

const plainText: LanguageSyntax = {
  lineComments: [],
  lineCommentNeedsSpace: false,
  blockComments: [],
  strings: [],
  characterLiterals: false,
  lineBlockComments: [],
};

/**
 * Classifies and lexes every text file of `files`. Binary files are left out; lockfiles keep no hunks
 * (nothing in them is screened beyond their name, and they can be huge).
 */
export function lexDiff(files: readonly DiffFile[], match: TamperMatcher): ScreenFile[] {
  return files
    .filter((file) => !file.binary)
    .map((file) => {
      const language = languageOf(file.path) ?? languageOf(file.oldPath);
      const syntax = language ? languageSyntax[language] : plainText;
      const tamper = match(file.path) ?? match(file.oldPath);
      const hunks = tamper?.category === "lockfile" ? [] : file.hunks;
      return {
        path: file.path,
        oldPath: file.oldPath,
        status: file.status,
        language,
        syntax,
        tamper,
        hunks: hunks.map((hunk) => {
          const oldLines = hunk.lines.filter((line) => line.sign !== "+");
          const newLines = hunk.lines.filter((line) => line.sign !== "-");
          const oldLexed = lexRun(
            oldLines.map((line) => line.text),
            syntax,
          );
          const newLexed = lexRun(
            newLines.map((line) => line.text),
            syntax,
          );
          const oldSide = oldLines.map((line, index) => ({ ...line, ...oldLexed[index] }));
          const newSide = newLines.map((line, index) => ({ ...line, ...newLexed[index] }));
          const lines: ScreenLine[] = [];
          let oldIndex = 0;
          let newIndex = 0;
          for (const line of hunk.lines) {
            if (line.sign === "-") lines.push(oldSide[oldIndex++]);
            else if (line.sign === "+") lines.push(newSide[newIndex++]);
            else {
              oldIndex++;
              lines.push(newSide[newIndex++]);
            }
          }
          return { section: hunk.section, lines, oldSide, newSide };
        }),
      };
    });
}

/** Runs of adjacent changed lines (no context line between them) of a hunk, in order. */
export function changeRuns(hunk: ScreenHunk): ScreenLine[][] {
  const runs: ScreenLine[][] = [];
  let run: ScreenLine[] = [];
  for (const line of hunk.lines) {
    if (line.sign === " ") {
      if (run.length > 0) runs.push(run);
      run = [];
    } else {
      run.push(line);
    }
  }
  if (run.length > 0) runs.push(run);
  return runs;
}

/** Whitespace removed: the form in which two lines count as the same code. */
export function compact(text: string): string {
  return text.replace(/\s+/g, "");
}

/** Counts of each key; `subtract` removes one occurrence per key of `other` (never below zero). */
export class Multiset {
  readonly #counts = new Map<string, number>();
  add(key: string): void {
    this.#counts.set(key, (this.#counts.get(key) ?? 0) + 1);
  }
  /** Removes one occurrence of `key`; true when there was one. */
  take(key: string): boolean {
    const count = this.#counts.get(key) ?? 0;
    if (count === 0) return false;
    this.#counts.set(key, count - 1);
    return true;
  }
}
