/**
 * The deterministic floor under the verifier: which of an iteration's tamper flags loopwright decides
 * itself, and the flags it computes from the gates' runs. A **blocking** flag (see `tamperClassOf`) fails
 * the iteration whatever the verifier would rule, unless the spec's `tamper.accept` names its kind; an
 * accepted or advisory flag goes to the verifier. Pure.
 */

import type { RecordedTamperFlag } from "../core/events.ts";
import { flagStanding } from "../core/flag-standing.ts";
import { passesPolicy } from "../core/gate-status.ts";
import type { Spec } from "../core/spec.ts";
import { tamperMatcher } from "../verify/tamper/classify-files.ts";
import { compareTestCounts } from "../verify/tamper/test-counts.ts";
import { type IterationState, type LoopState, phaseResults } from "./state.ts";

/** The iteration's flags that fail it whatever the verifier rules. */
export function blockingFlags(spec: Spec, iteration: IterationState): RecordedTamperFlag[] {
  return iteration.tamperFlags.filter((flag) => flagStanding(spec, flag) === "blocking");
}

/** One flag as a person reads it: `T2 skip-marker-added at test/add.test.js:5: <detail>`. */
export function describeFlag(flag: RecordedTamperFlag): string {
  const place = flag.file ? ` at ${flag.file}${flag.line ? `:${flag.line}` : ""}` : "";
  return `${flag.id} ${flag.kind}${place}: ${flag.detail}`;
}

/** The summary of an iteration failed by blocking flags: every flag, precisely. */
export function describeBlockingFlags(flags: RecordedTamperFlag[]): string {
  return `blocked by tamper flags (decided by loopwright, not the verifier): ${flags.map(describeFlag).join("; ")}`;
}

/**
 * Flags computed from the iteration's graded runs against the base commit's (ids `C-<gate>` and
 * `F-<gate>`): fewer tests executed than on the base commit, and a base failure made to pass by a
 * change that touched only test files.
 */
export function runFlags(state: LoopState, iteration: IterationState): RecordedTamperFlag[] {
  const onlyTests = touchesOnlyTests(state.spec, iteration);
  return state.spec.gates.flatMap((gate) => {
    const graded = phaseResults(iteration, "grade")[gate.id];
    const baseline = state.baseline[gate.id];
    if (!graded || !baseline) return [];
    const flags: RecordedTamperFlag[] = [];
    const fewer = compareTestCounts(baseline.testsExecuted, graded.testsExecuted);
    if (fewer)
      flags.push({ id: `C-${gate.id}`, kind: fewer.kind, detail: `gate ${gate.id}: ${fewer.detail}` });
    if (onlyTests && !baseline.passed && passesPolicy(gate, graded, baseline)) {
      const fixed = (baseline.failures ?? []).filter((name) => !(graded.failures ?? []).includes(name));
      const names =
        fixed.length > 0 ? `: ${fixed.slice(0, 5).join("; ")}${fixed.length > 5 ? "; ..." : ""}` : "";
      flags.push({
        id: `F-${gate.id}`,
        kind: "test-only-fix",
        detail: `gate ${gate.id} failed on the base commit and passes now, and the change touched only test files${names}`,
      });
    }
    return flags;
  });
}

/** Whether the loop's change (from the base commit) touched files, all of them tests. */
function touchesOnlyTests(spec: Spec, iteration: IterationState): boolean {
  const files = iteration.screen?.changedFiles ?? [];
  const match = tamperMatcher(spec.scope.protect);
  return files.length > 0 && files.every((file) => match(file)?.category === "tests");
}
