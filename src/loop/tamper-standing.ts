/**
 * Tamper flags as a person reads them: each flag with its class (blocking: decided by loopwright;
 * advisory: ruled by the verifier) and the verifier's ruling, and the words that go next to "verified"
 * wherever it is said (`verified, 2 tamper flags ruled legitimate`). Pure.
 */

import type { RecordedTamperFlag, TamperRuling } from "../core/events.ts";
import { type FlagStanding, flagStanding } from "../core/flag-standing.ts";
import type { Spec } from "../core/spec.ts";
import { type TamperClass, tamperClassOf } from "../core/tamper-flag.ts";
import type { IterationState, LoopState } from "./state.ts";

export interface TamperStanding {
  flag: RecordedTamperFlag;
  tamperClass: TamperClass;
  /** `accepted`: blocking, but the spec's `tamper.accept` hands it to the verifier. */
  standing: FlagStanding;
  /** The verifier's ruling, when it ruled on this flag. */
  ruling?: TamperRuling;
}

/** Each flag of an iteration with its class and the verifier's ruling, in the order they were found. */
export function tamperStandings(spec: Spec, iteration: IterationState): TamperStanding[] {
  const rulings = iteration.verifier?.verdict?.tamper ?? [];
  return iteration.tamperFlags.map((flag) => ({
    flag,
    tamperClass: tamperClassOf(flag.kind),
    standing: flagStanding(spec, flag),
    ruling: rulings.find((ruling) => ruling.id === flag.id),
  }));
}

/**
 * `T1 BLOCKING skip-marker-added test/a.test.js:4: it.skip added`, `T2 advisory tamper-file ...`: the
 * class in capitals when loopwright decides it, so that it stands out from what the verifier rules
 * (`blocking, accepted`: a blocking kind the spec's `tamper.accept` hands to the verifier).
 */
export function describeClassedFlag(spec: Spec, flag: RecordedTamperFlag): string {
  const where = flag.file ? ` ${flag.file}${flag.line ? `:${flag.line}` : ""}` : "";
  return `${flag.id} ${standingLabels[flagStanding(spec, flag)]} ${flag.kind}${where}: ${flag.detail}`;
}

const standingLabels: Record<FlagStanding, string> = {
  blocking: "BLOCKING",
  accepted: "blocking, accepted",
  advisory: "advisory",
};

/** `ruled legitimate: the fixture needed the new case`, `ruled NOT legitimate: ...`, or `not ruled`. */
export function describeRuling(ruling: TamperRuling | undefined): string {
  if (!ruling) return "not ruled";
  return `${ruling.legitimate ? "ruled legitimate" : "ruled NOT legitimate"}: ${ruling.reason}`;
}

/** The iteration that made the loop verified, if it is. */
export function verifiedIteration(state: LoopState): IterationState | undefined {
  return state.iterations.findLast((iteration) => iteration.ended?.outcome === "verified");
}

/**
 * How many of the verified iteration's flags the verifier ruled legitimate, and how many of those are of
 * a blocking kind the spec accepted.
 */
export function legitimateFlagCount(state: LoopState): { ruledLegitimate: number; accepted: number } {
  const iteration = verifiedIteration(state);
  const legitimate = iteration
    ? tamperStandings(state.spec, iteration).filter((standing) => standing.ruling?.legitimate)
    : [];
  return {
    ruledLegitimate: legitimate.length,
    accepted: legitimate.filter((standing) => standing.standing !== "advisory").length,
  };
}

/**
 * `verified`, or `verified, 2 tamper flags ruled legitimate` (and how many of a blocking kind): what every
 * place that says a loop is verified says.
 */
export function describeVerified(state: LoopState): string {
  const { ruledLegitimate, accepted } = legitimateFlagCount(state);
  if (ruledLegitimate === 0) return "verified";
  const flags = `${ruledLegitimate} tamper flag${ruledLegitimate === 1 ? "" : "s"} ruled legitimate`;
  return `verified, ${flags}${accepted > 0 ? ` (${accepted} of a blocking kind the spec accepts)` : ""}`;
}
