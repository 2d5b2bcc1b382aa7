/**
 * `tests-excluded`: a runner, coverage or CI configuration that excludes more tests than before. It
 * reads exclusion entries (values of settings such as `testPathIgnorePatterns`, `exclude`, `omit`,
 * `norecursedirs`, `collect_ignore`, `skip`; command-line options such as `--ignore`, `--deselect`,
 * `-k "not …"`, `--exclude`, `--skip`, `-DskipTests`; failures ignored with `|| true`,
 * `continue-on-error: true`, `allow_failure: true`, `testFailureIgnore`) on each side of the change and
 * flags the entries the change gains. An entry only moved or re-formatted is not gained. Pure.
 *
 * Multi-line lists are read from the diff's context: an entry added to a list whose setting name is more
 * than the diff's context lines above it is not seen.
 */

import { excerpt, type TamperFlag } from "../../core/tamper-flag.ts";
import { Multiset, type ScreenFile, type ScreenLine } from "./lexed-diff.ts";

/** Setting names (normalized: lower case, no `-` or `_`) whose values exclude tests or files. */
const exclusionSetting =
  /^(?:(?:test|module|coverage)pathignorepatterns?|testignore|ignorepatterns?|ignores?|extendignore|perfileignores|(?:extend)?exclude\w*|excluded|omit|norecursedirs|collectignore(?:glob)?|deselect|skips?|skip(?:dirs|files|tests)|filterrunexcluding)$/;

/** Command-line options whose values exclude tests. */
const exclusionOption =
  /(?:^|[\s"'[,=])(--ignore(?:-glob)?|--deselect|--test-?path-?ignore-?patterns?|--modulePathIgnorePatterns|--exclude(?:-pattern|-tag|-dir)?|--ignore-pattern|--test-?ignore|--skip|-skip|(?:--tag|-t)(?=[=\s]+~))(?:=|\s+)(["']?)([^\s"']+)\2/gi;

/** Options and settings that exclude everything or ignore failures, read as a whole. */
const wholesale: RegExp[] = [
  /-D(?:skipTests|maven\.test\.skip|skipITs)\b(?:=true)?/g,
  /\s-x\s+\S*test\S*/gi,
  /\|\|\s*(?:true|exit\s+0|:)(?=\s|$|["'])/g,
  /\bcontinue-on-error\s*:\s*true\b/g,
  /\ballow_failure\s*:\s*true\b/g,
  /--passWithNoTests\b/g,
  /--invert\b/g,
  // npm runs every script with `script-shell`; `ignore-scripts` skips pre- and post-scripts.
  /\bscript-shell\s*=\s*\S+/g,
  /\bignore-scripts\s*=\s*true\b/g,
  /<(skipTests|testFailureIgnore|skip)>\s*true\s*<\/\1>/gi,
];

/** An entry found on an added line: its identity (setting or option, and value), line and hunk. */
interface Entry {
  key: string;
  line: ScreenLine;
  hunk: number;
  file: string;
}

/** Files whose code may configure test collection although they are tests themselves. */
const testSetupFile = /(?:^|\/)(?:conftest\.py|test_helper\.exs|spec_helper\.rb|rails_helper\.rb|\.rspec)$/;

/**
 * Flags exclusion entries the change adds to files of the tamper set: one flag per hunk that gains any.
 * An entry removed from one file and added to another (configuration moved) is not gained.
 */
export function screenExcludedTests(files: readonly ScreenFile[]): TamperFlag[] {
  const screened = files.filter(
    (file) =>
      file.tamper &&
      file.tamper.category !== "lockfile" &&
      (file.tamper.category !== "tests" || testSetupFile.test(file.path)),
  );
  const removed = new Multiset();
  const added: Entry[] = [];
  for (const file of screened) {
    for (const [hunkIndex, hunk] of file.hunks.entries()) {
      for (const [sign, side] of [
        ["-", hunk.oldSide],
        ["+", hunk.newSide],
      ] as const) {
        for (const [index, line] of side.entries()) {
          if (line.sign !== sign) continue;
          for (const key of entriesOf(side, index, file.path, file.language === "xml")) {
            if (sign === "-") removed.add(key);
            else added.push({ key, line, hunk: hunkIndex, file: file.path });
          }
        }
      }
    }
  }
  // One flag per hunk, at its first line that gains an entry, listing what the hunk gains.
  const gainedByHunk = new Map<string, Entry[]>();
  for (const entry of added) {
    if (removed.take(entry.key)) continue;
    const hunk = `${entry.file}\u0000${entry.hunk}`;
    gainedByHunk.set(hunk, [...(gainedByHunk.get(hunk) ?? []), entry]);
  }
  return [...gainedByHunk.values()].map((entries) => {
    const keys = [...new Set(entries.map((entry) => entry.key))];
    const listed = keys.slice(0, 5).map((key) => `\`${excerpt(key)}\``);
    if (keys.length > 5) listed.push(`${keys.length - 5} more`);
    return {
      kind: "tests-excluded",
      file: entries[0].file,
      line: entries[0].line.newLine,
      side: "new",
      detail: `excludes ${listed.join(", ")}: ${excerpt(entries[0].line.uncommented)}`,
    };
  });
}

/** Ignore files (`.eslintignore`, `.prettierignore`…): every line is an entry. */
const ignoreFile = /(?:^|\/)\.\w+ignore$/;

/** The exclusion entries on `side[index]`: options, settings on the line, and items of an enclosing list. */
function entriesOf(side: readonly ScreenLine[], index: number, path: string, xml: boolean): string[] {
  const line = side[index];
  const text = line.uncommented;
  if (ignoreFile.test(path)) {
    const entry = text.trim();
    return entry === "" || entry.startsWith("#") ? [] : [`ignore ${entry}`];
  }
  const entries: string[] = [];
  if (/(?:^|\/)Cargo\.toml$/.test(path)) {
    // `[lib] test = false`, `[[test]] harness = false`, `autotests = false`: tests no longer built or run.
    const cargo = /^\s*(test|doctest|harness|autotests)\s*=\s*false\b/.exec(text);
    if (cargo) entries.push(`${cargo[1]} = false`);
  }
  for (const match of text.matchAll(exclusionOption)) entries.push(`${match[1]} ${match[3]}`);
  for (const match of text.matchAll(/(?:^|\s)-k(?:=|\s+)(["']?)(.+?)\1(?=\s|$|,)/g)) {
    for (const term of match[2].matchAll(/\bnot\s+([\w[\]:.\-/]+)/g)) entries.push(`-k not ${term[1]}`);
  }
  for (const pattern of wholesale) {
    for (const match of text.matchAll(pattern)) entries.push(match[0].trim());
  }
  if (xml) {
    for (const match of text.matchAll(/<(\w+)>([^<]*)<\/\1>/g)) {
      if (exclusionSetting.test(normalize(match[1]))) entries.push(`${match[1]} ${match[2].trim()}`);
    }
    return entries;
  }
  const setting = settingOn(line);
  if (setting) {
    entries.push(...valuesIn(setting.value).map((value) => `${setting.name} ${value}`));
    return entries;
  }
  const opener = enclosingOpener(side, index);
  const parent = opener === undefined ? undefined : settingOn(side[opener]);
  if (parent && (opensContainer(parent.value) || valuesIn(parent.value).length === 0)) {
    entries.push(...valuesIn(text).map((value) => `${parent.name} ${value}`));
  }
  return entries;
}

const normalize = (name: string) => name.toLowerCase().replace(/[-_]/g, "");

/** More brackets opened than closed: a list or map that continues on the next lines. */
export function opensContainer(text: string): boolean {
  return (text.match(/[[({]/g)?.length ?? 0) > (text.match(/[\])}]/g)?.length ?? 0);
}

/**
 * A setting named by `names` (default: the exclusion settings) on the line (`exclude: [...]`, `omit =`,
 * `"testPathIgnorePatterns": [`, `exclude '…'`), with the text after it.
 */
export function settingOn(
  line: ScreenLine,
  names: { test(name: string): boolean } = exclusionSetting,
): { name: string; value: string } | undefined {
  // A name at the start of the line or of an argument or entry, then `=`, `(`, a space, or a `:` that
  // ends a key (`key: value`, not `ignore:Warning:module` inside a value).
  const setting = /(?:^|[({,])\s*(?:-\s+)?["']?([A-Za-z_][\w-]*)["']?\s*(?::(?=\s|$|["'[{])|=|\(|\s)/g;
  for (const match of line.uncommented.matchAll(setting)) {
    if (!names.test(normalize(match[1]))) continue;
    return { name: match[1], value: line.uncommented.slice(match.index + match[0].length) };
  }
  return undefined;
}

/** The values of a list or scalar: string literals if any, else bare words. */
export function valuesIn(text: string): string[] {
  const strings = [...text.matchAll(/"((?:[^"\\]|\\.)*)"|'((?:[^'\\]|\\.)*)'|`([^`]*)`/g)].map(
    (match) => match[1] ?? match[2] ?? match[3],
  );
  if (strings.length > 0) return strings.filter((value) => value !== "");
  return text
    .split(/[\s,[\]{}()=:]+/)
    .map((word) => word.replace(/^-\s*/, ""))
    .filter((word) => word !== "" && word !== "-" && !/^(?:do|end|then)$/.test(word));
}

const openerCache = new WeakMap<readonly ScreenLine[], (number | undefined)[]>();

/**
 * The index of the line that opens the list or block holding `side[index]`: the line of the innermost
 * bracket still open at its start, or else its parent by indentation (YAML, INI continuations).
 */
export function enclosingOpener(side: readonly ScreenLine[], index: number): number | undefined {
  let openers = openerCache.get(side);
  if (!openers) {
    openers = openersOf(side);
    openerCache.set(side, openers);
  }
  return openers[index];
}

/** `enclosingOpener` for every line of `side`, in one pass. */
function openersOf(side: readonly ScreenLine[]): (number | undefined)[] {
  const brackets: number[] = [];
  const parents: { indent: number; index: number; listItem: boolean }[] = [];
  const openers: (number | undefined)[] = [];
  for (const [index, line] of side.entries()) {
    const indent = /^\s*/.exec(line.raw)?.[0].length ?? 0;
    const listItem = /^\s*- /.test(line.code);
    const blank = line.code.trim() === "";
    if (!blank) {
      while (parents.length > 0) {
        const top = parents[parents.length - 1];
        if (top.indent < indent || (listItem && top.indent === indent && !top.listItem)) break;
        parents.pop();
      }
    }
    openers.push(brackets.length > 0 ? brackets[brackets.length - 1] : parents.at(-1)?.index);
    if (!blank) parents.push({ indent, index, listItem });
    for (const character of line.code) {
      if ("([{".includes(character)) brackets.push(index);
      else if (")]}".includes(character)) brackets.pop();
    }
  }
  return openers;
}
