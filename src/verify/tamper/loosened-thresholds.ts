/**
 * `threshold-loosened`: a number in a configuration or test file changed in the permissive direction.
 * Coverage minimums lowered (`branches: 80 → 60`, `--cov-fail-under`, `fail_under`), or removed; timeouts
 * raised to at least twice their value (or set to 0, which disables them); tolerances raised (`abs`,
 * `rtol`, `delta`, `epsilon`, `InDelta`, `be_within`); precision lowered (`toBeCloseTo(x, 5 → 1)`,
 * `places`); warning and lint limits raised (`maxWarnings`, `line-length`); retries raised; and the bound
 * of a comparison in an assertion moved the permissive way (`toBeLessThan(100 → 500)`, `assert t < 0.5
 * → 2`). A number whose meaning is unknown is never flagged. Pure.
 */

import { excerpt, type TamperFlag } from "../../core/tamper-flag.ts";
import { hasAssertion } from "./deleted-assertions.ts";
import { showsInlineTests } from "./inline-tests.ts";
import { changeRuns, compact, type ScreenFile, type ScreenLine } from "./lexed-diff.ts";

/** What a number means, and which direction loosens it. */
interface ThresholdRule {
  label: string;
  looser: "lower" | "higher";
  /** A raise counts only when the new value is at least this many times the old one. */
  factor?: number;
  /** 0 (or, with `unlimitedBelowZero`, a negative value) switches the limit off. */
  zeroDisables?: boolean;
  unlimitedBelowZero?: boolean;
  /** Only in configuration files (in test code these names mean too many other things). */
  configurationOnly?: boolean;
  /** Removing the setting altogether loosens it. */
  removalLoosens?: boolean;
}

/** Timeouts raised this many times over are flagged. */
export const timeoutRaiseFactor = 2;

const coverage: ThresholdRule = {
  label: "coverage minimum",
  looser: "lower",
  configurationOnly: true,
  removalLoosens: true,
};
const timeout: ThresholdRule = {
  label: "timeout",
  looser: "higher",
  factor: timeoutRaiseFactor,
  zeroDisables: true,
};
const tolerance: ThresholdRule = { label: "tolerance", looser: "higher" };
const precision: ThresholdRule = { label: "precision", looser: "lower" };
const warningLimit: ThresholdRule = {
  label: "warning limit",
  looser: "higher",
  unlimitedBelowZero: true,
  removalLoosens: true,
};
const lintLimit: ThresholdRule = { label: "lint limit", looser: "higher" };
const retries: ThresholdRule = { label: "retries", looser: "higher" };
const upperBound: ThresholdRule = { label: "upper bound", looser: "higher" };
const lowerBound: ThresholdRule = { label: "lower bound", looser: "lower" };

/** Settings by name (normalized: lower case, without `-` and `_`). */
const namedRules: { pattern: RegExp; rule: ThresholdRule }[] = [
  {
    pattern:
      /^(?:branches|lines|functions|statements|(?:cov)?failunder|min(?:imum)?(?:coverage)?(?:percent(?:age)?)?|minbound|coveragethreshold|coverage|target|coveredratio)$/,
    rule: coverage,
  },
  { pattern: /timeout/, rule: timeout },
  {
    pattern:
      /^(?:tolerance|tol|rtol|atol|abstol|reltol|abs|rel|epsilon|eps|delta|margin|threshold|maxdiff\w*)$/,
    rule: tolerance,
  },
  { pattern: /^(?:places|precision|digits|decimal)$/, rule: precision },
  { pattern: /^max(?:warnings|errors|issues\w*|sameissues)$/, rule: warningLimit },
  {
    pattern: /^(?:max(?:linelength|len|complexity|depth|params|statements|nestedcallbacks)|linelength)$/,
    rule: lintLimit,
  },
  { pattern: /^(?:retries|retry|retrytimes|reruns|maxretries|flakyretries)$/, rule: retries },
];

/** Functions whose arguments are thresholds: which argument, by position. */
const callRules: {
  pattern: RegExp;
  rule: ThresholdRule;
  argument: "last" | number;
  minimumArguments?: number;
}[] = [
  { pattern: /^tobecloseto$/, rule: precision, argument: 1 },
  { pattern: /^(?:assert(?:not)?almostequals?|assert(?:array)?almostequal)$/, rule: precision, argument: 2 },
  {
    pattern: /^(?:indelta\w*|inepsilon\w*|assertindelta|assertinepsilon|assertallclose|allclose|isclose)$/,
    rule: tolerance,
    argument: "last",
    minimumArguments: 3,
  },
  { pattern: /^(?:assertequals|assertarrayequals)$/, rule: tolerance, argument: "last", minimumArguments: 3 },
  { pattern: /^(?:closeto|approximately)$/, rule: tolerance, argument: 1 },
  { pattern: /^approx$/, rule: tolerance, argument: "last", minimumArguments: 2 },
  { pattern: /^(?:bewithin|within)$/, rule: tolerance, argument: 0 },
  {
    pattern:
      /^(?:tobelessthan(?:orequal)?|lessthan(?:orequal(?:to)?)?|below|most|lt|lte|le|isbelow|isatmost|less(?:orequal)?|assertless(?:equal)?|islessthan(?:orequalto)?)$/,
    rule: upperBound,
    argument: "last",
  },
  {
    pattern:
      /^(?:tobegreaterthan(?:orequal)?|greaterthan(?:orequal(?:to)?)?|above|least|gt|gte|ge|isabove|isatleast|greater(?:orequal)?|assertgreater(?:equal)?|isgreaterthan(?:orequalto)?)$/,
    rule: lowerBound,
    argument: "last",
  },
];

/** A number in a line; a unit right after it (`5s`, `80%`) is kept apart. */
interface NumberAt {
  value: number;
  unit: string;
  start: number;
  end: number;
}

const numberPattern = /(?<![\w.$])-?\d[\d_]*(?:\.\d+)?(?:[eE][-+]?\d+)?(?=(?:ms|s|m|h|min|%)?(?![\w.]))/g;

function numbersIn(text: string): NumberAt[] {
  return [...text.matchAll(numberPattern)].map((match) => {
    const end = match.index + match[0].length;
    return {
      value: Number(match[0].replaceAll("_", "")),
      unit: /^(?:ms|min|s|m|h|%)?/.exec(text.slice(end))?.[0] ?? "",
      start: match.index,
      end,
    };
  });
}

const seconds: Record<string, number> = { ms: 0.001, s: 1, m: 60, min: 60, h: 3600 };

/** The two values in one unit, or `undefined` when their units cannot be compared. */
function inSameUnit(before: NumberAt, after: NumberAt): [number, number] | undefined {
  if (before.unit === after.unit) return [before.value, after.value];
  const from = seconds[before.unit];
  const to = seconds[after.unit];
  return from && to ? [before.value * from, after.value * to] : undefined;
}

/** The line with its numbers replaced, whitespace removed: two lines of one shape differ only in numbers. */
function shapeOf(text: string): string {
  return compact(text.replace(numberPattern, "#"));
}

const normalize = (name: string) => name.toLowerCase().replace(/[-_]/g, "");

/** The rule and setting name for the number at `at` on `line`, if its meaning is known. */
function ruleAt(
  line: ScreenLine,
  at: NumberAt,
  inConfiguration: boolean,
  assertionLine: boolean,
): { rule: ThresholdRule; name: string } | undefined {
  const before = line.uncommented.slice(0, at.start);
  const keys = [
    // `key: 80`, `key = 80`, `"key": 80`, `--key=80`, `--key 80`, `<key>80`, `key => 80`
    /([A-Za-z_$][\w$.-]*)["']?\s*(?::|=|=>|>|\s)\s*["']?\s*$/.exec(before)?.[1],
    // A typed declaration: `const EPSILON: f64 = 1e-9`, `val tolerance: Double = 0.1`
    /([A-Za-z_$][\w$]*)\s*:\s*[\w<>[\]&' ]+?\s*=\s*$/.exec(before)?.[1],
  ];
  for (const key of keys) {
    if (!key) continue;
    const segments = key.split(".");
    const name = normalize(segments.at(-1) ?? "");
    const receiver = segments.at(-2) ?? "";
    const found = namedRules.find((candidate) => candidate.pattern.test(name));
    const usable = found && (inConfiguration || !found.rule.configurationOnly);
    if (usable && !(/^(?:set|clear)timeout$/.test(name) && !/^(?:jest|vi|jasmine)$/.test(receiver))) {
      return { rule: found.rule, name: key };
    }
  }
  const call = enclosingCall(line.code, at);
  if (call) {
    const name = normalize(call.callee.split(".").at(-1) ?? "");
    for (const candidate of callRules) {
      if (!candidate.pattern.test(name)) continue;
      if (call.count < (candidate.minimumArguments ?? 1)) continue;
      const wanted = candidate.argument === "last" ? call.count - 1 : candidate.argument;
      if (call.index === wanted) return { rule: candidate.rule, name: call.callee };
    }
    if (call.index === 0 && call.count === 1) {
      const named = namedRules.find((candidate) => candidate.pattern.test(name));
      const receiver = call.callee.split(".").at(-2) ?? "";
      if (named && !named.rule.configurationOnly) {
        if (!(/^(?:set|clear)timeout$/.test(name) && !/^(?:jest|vi|jasmine|this)$/.test(receiver))) {
          return { rule: named.rule, name: call.callee };
        }
      }
    }
  }
  if (assertionLine) {
    const comparison = /(?<![=\-<>!])(<=?|>=?)\s*$/.exec(line.code.slice(0, at.start));
    if (comparison) {
      return { rule: comparison[1].startsWith("<") ? upperBound : lowerBound, name: comparison[1] };
    }
  }
  return undefined;
}

/**
 * The call whose argument list holds `at`: callee, argument index and argument count, on one line. A
 * call without parentheses at the start of the line (Ruby's and Elixir's `assert_in_delta a, b, 0.1`)
 * counts too.
 */
function enclosingCall(
  code: string,
  at: NumberAt,
): { callee: string; index: number; count: number } | undefined {
  let depth = 0;
  let index = 0;
  let open = -1;
  for (let position = at.start - 1; position >= 0; position--) {
    const character = code[position];
    if (")]}".includes(character)) depth++;
    else if ("([{".includes(character)) {
      if (depth === 0) {
        if (character !== "(") return undefined;
        open = position;
        break;
      }
      depth--;
    } else if (character === "," && depth === 0) index++;
  }
  let callee: string | undefined;
  if (open >= 0) {
    callee = /([A-Za-z_$][\w$.]*)\s*!?\s*$/.exec(code.slice(0, open))?.[1];
  } else {
    const command = /^\s*([A-Za-z_][\w.]*[!?]?)\s+(?=\S)/.exec(code);
    if (command && command[0].length <= at.start) callee = command[1];
  }
  if (!callee) return undefined;
  let count = index + 1;
  depth = 0;
  for (let position = at.end; position < code.length; position++) {
    const character = code[position];
    if ("([{".includes(character)) depth++;
    else if (")]}".includes(character)) {
      if (depth === 0) return open >= 0 ? { callee, index, count } : undefined;
      depth--;
    } else if (character === "," && depth === 0) count++;
  }
  // The end of the line closes a call without parentheses; one with them continues on another line.
  return open >= 0 ? undefined : { callee, index, count };
}

/** Whether going from `before` to `after` loosens `rule`. */
function loosens(rule: ThresholdRule, before: number, after: number): boolean {
  if (rule.zeroDisables && after === 0 && before !== 0) return true;
  if (rule.unlimitedBelowZero && after < 0 && before >= 0) return true;
  if (rule.looser === "lower") return after < before;
  if (after <= before) return false;
  return rule.factor === undefined || (before > 0 && after >= before * rule.factor);
}

/**
 * Flags loosened thresholds in one file of the tamper set; other files are not screened. Each removed
 * line whose edit is explained by a flag here is added to `explained` (so it is not flagged again).
 */
export function screenLoosenedThresholds(file: ScreenFile, explained?: Set<ScreenLine>): TamperFlag[] {
  if (file.tamper?.category === "lockfile") return [];
  // A source file outside the tamper set is screened only where it shows inline tests (`#[cfg(test)]`).
  const hunks = file.tamper ? file.hunks : file.hunks.filter((hunk) => showsInlineTests(file, hunk));
  if (hunks.length === 0) return [];
  const language = file.language;
  const inConfiguration = file.tamper !== undefined && file.tamper.category !== "tests";
  const assertion = (line: ScreenLine) => (language ? hasAssertion(language, line.code) : false);
  const flags: TamperFlag[] = [];
  const unpairedRemoved: ScreenLine[] = [];
  const unpairedAdded: ScreenLine[] = [];
  for (const hunk of hunks) {
    for (const run of changeRuns(hunk)) {
      const added = run.filter((line) => line.sign === "+");
      const used = new Set<ScreenLine>();
      for (const removed of run.filter((line) => line.sign === "-")) {
        const shape = shapeOf(removed.uncommented);
        const partner = added.find((line) => !used.has(line) && shapeOf(line.uncommented) === shape);
        if (!partner) {
          unpairedRemoved.push(removed);
          continue;
        }
        used.add(partner);
        const oldNumbers = numbersIn(removed.uncommented);
        const newNumbers = numbersIn(partner.uncommented);
        // Every changed number has a known meaning and none loosens: the line was made stricter.
        let stricter = true;
        for (const [index, next] of newNumbers.entries()) {
          const previous = oldNumbers[index];
          if (!previous || previous.value === next.value) continue;
          const found = ruleAt(partner, next, inConfiguration, assertion(partner));
          if (!found) stricter = false;
          if (found && loosens(found.rule, previous.value, next.value)) {
            flags.push(flagFor(file, partner, found, previous, next));
            explained?.add(removed);
            stricter = false;
          }
        }
        if (stricter && oldNumbers.length === newNumbers.length) explained?.add(removed);
      }
      unpairedAdded.push(...added.filter((line) => !used.has(line)));
    }
  }
  flags.push(...screenMovedOrRemoved(file, unpairedRemoved, unpairedAdded, inConfiguration));
  return flags;
}

/**
 * Settings on lines that changed shape: matched by name with a setting of the same name added elsewhere
 * in the file, or, when none was, reported as removed if removing them loosens the check.
 */
function screenMovedOrRemoved(
  file: ScreenFile,
  removed: readonly ScreenLine[],
  added: readonly ScreenLine[],
  inConfiguration: boolean,
): TamperFlag[] {
  const settings = (line: ScreenLine) =>
    numbersIn(line.uncommented).flatMap((at) => {
      const found = ruleAt(line, at, inConfiguration, false);
      return found && found.name !== "<" && found.name !== ">"
        ? [{ line, at, ...found, key: normalize(found.name) }]
        : [];
    });
  const addedSettings = added.flatMap(settings);
  const flags: TamperFlag[] = [];
  for (const setting of removed.flatMap(settings)) {
    const partner = addedSettings.findIndex((candidate) => candidate.key === setting.key);
    if (partner >= 0) {
      const [next] = addedSettings.splice(partner, 1);
      const values = inSameUnit(setting.at, next.at);
      if (values && loosens(setting.rule, ...values)) {
        flags.push(flagFor(file, next.line, next, setting.at, next.at));
      }
    } else if (setting.rule.removalLoosens) {
      flags.push({
        kind: "threshold-loosened",
        file: file.path,
        line: setting.line.oldLine,
        side: "old",
        detail: `${setting.rule.label} \`${setting.name}\` (${show(setting.at)}) removed: ${excerpt(setting.line.uncommented)}`,
      });
    }
  }
  return flags;
}

function flagFor(
  file: ScreenFile,
  line: ScreenLine,
  found: { rule: ThresholdRule; name: string },
  before: NumberAt,
  after: NumberAt,
): TamperFlag {
  const [from, to] = inSameUnit(before, after) ?? [before.value, after.value];
  const verb = to < from ? "lowered" : "raised";
  return {
    kind: "threshold-loosened",
    file: file.path,
    line: line.newLine,
    side: "new",
    detail: `${found.rule.label} \`${found.name}\` ${verb} from ${show(before)} to ${show(after)}: ${excerpt(line.uncommented)}`,
  };
}

const show = (number: NumberAt) => `${number.value}${number.unit}`;
