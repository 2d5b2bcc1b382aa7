/**
 * The screen's search for tests that failed on the base commit and are gone from the graded commit's
 * code (`baseline-failure-not-executed`, ids `B1`, `B2`, ...): two `git grep` runs, one per commit.
 */

import type { RecordedTamperFlag } from "../../core/events.ts";
import { gitResult } from "../../git/git.ts";
import {
  missingBaseFailures,
  parseGrepHits,
  searchTermOf,
} from "../../verify/tamper/missing-base-failures.ts";
import type { LoopState } from "../state.ts";

/** Base failures looked for per screen: enough for any real fix, bounded for a suite that is all red. */
const namesSearched = 200;

export async function missingBaseFailureFlags(
  state: LoopState,
  worktree: string,
  baseSha: string,
  sha: string,
): Promise<RecordedTamperFlag[]> {
  const gates = Object.values(state.baseline).filter((result) => (result.failures ?? []).length > 0);
  const names = gates.flatMap((result) => result.failures ?? []).slice(0, namesSearched);
  const terms = [...new Set(names.map(searchTermOf).filter((term): term is string => term !== undefined))];
  if (terms.length === 0) return [];
  const search = async (revision: string) => {
    const args = [
      "grep",
      "-n",
      "-I",
      "-F",
      "--no-color",
      ...terms.flatMap((term) => ["-e", term]),
      revision,
      "--",
    ];
    const result = await gitResult(args, worktree);
    return parseGrepHits(result.code === 0 ? result.stdout : "", revision, terms);
  };
  const [atBase, atGraded] = await Promise.all([search(baseSha), search(sha)]);
  const flags = gates.flatMap((result) =>
    missingBaseFailures(result.id, (result.failures ?? []).slice(0, namesSearched), [], atBase, atGraded),
  );
  return flags.map((flag, index) => ({
    id: `B${index + 1}`,
    kind: flag.kind,
    file: flag.file,
    line: flag.line,
    detail: flag.detail,
  }));
}
