/**
 * `baseline-failure-not-executed`: a test that failed on the base commit whose name was in the code
 * there and is nowhere in the code of the graded commit: it cannot have run, so it cannot have been
 * fixed. Names the code never spelled out (generated or escaped ones) are not judged. Pure: the caller
 * searches both commits for `searchTermOf` each name (see `parseGrepHits`).
 */
import type { TamperFlag } from "../../core/tamper-flag.ts";

/** Shortest name part searched for: shorter ones match anything. */
const shortestTerm = 4;

/**
 * The part of a runner's test name the source spells out: the last segment of a nested name
 * (`suite > test`, `file.py::Class::test`, `module::tests::name`), without pytest parameters, and the
 * method of a dotted unittest id. Undefined when nothing usable is left.
 */
export function searchTermOf(name: string): string | undefined {
  let leaf = name.split(" > ").at(-1) ?? name;
  leaf = leaf.split("::").at(-1) ?? leaf;
  leaf = leaf.replace(/\[.*\]$/, "").trim();
  const unittest = /^(\w+) \([\w.]+\)/.exec(leaf);
  if (unittest) leaf = unittest[1];
  else if (/^[\w.]+$/.test(leaf) && leaf.includes(".")) leaf = leaf.split(".").at(-1) ?? leaf;
  if (leaf.length < shortestTerm || /["'`\\\n]/.test(leaf)) return undefined;
  return leaf;
}

/** Where each term first appears in `git grep -n -F` output run at one commit (`<rev>:<file>:<line>:<text>`). */
export function parseGrepHits(
  output: string,
  revision: string,
  terms: readonly string[],
): Map<string, { file: string; line: number }> {
  const hits = new Map<string, { file: string; line: number }>();
  for (const row of output.split("\n")) {
    const match = /^(.*?):(\d+):(.*)$/.exec(
      row.startsWith(`${revision}:`) ? row.slice(revision.length + 1) : row,
    );
    if (!match) continue;
    for (const term of terms) {
      if (!hits.has(term) && match[3].includes(term))
        hits.set(term, { file: match[1], line: Number(match[2]) });
    }
  }
  return hits;
}

/**
 * One flag per base failure of a gate whose term was found at the base commit and not at the graded
 * one, and which the graded run does not list as failing. `file`/`line` are where it was on the base
 * commit (`side: "old"`).
 */
export function missingBaseFailures(
  gateId: string,
  baseFailures: readonly string[],
  currentFailures: readonly string[],
  atBase: ReadonlyMap<string, { file: string; line: number }>,
  atGraded: ReadonlyMap<string, unknown>,
): TamperFlag[] {
  const failing = new Set(currentFailures);
  return baseFailures.flatMap((name) => {
    const term = searchTermOf(name);
    const was = term === undefined ? undefined : atBase.get(term);
    if (!term || !was || atGraded.has(term) || failing.has(name)) return [];
    return [
      {
        kind: "baseline-failure-not-executed",
        file: was.file,
        line: was.line,
        side: "old",
        detail: `gate ${gateId}: "${name}" failed on the base commit and is no longer in the code`,
      },
    ];
  });
}
