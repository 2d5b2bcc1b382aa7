/**
 * How a gate's run is put into words, the same in the live output, `show`, the report and the brief.
 * Pure. A lint gate has findings and a build has errors, not failing tests; a timed-out run has no exit
 * code worth printing, only how long it was allowed.
 */
import { formatDuration } from "../core/duration.ts";
import type { GatePhase, GateResult } from "../core/events.ts";
import type { GateKind } from "../core/spec.ts";

const nouns: Record<GateKind, string> = {
  "tests-pass": "failing test",
  "lint-clean": "lint finding",
  "build-succeeds": "build error",
  "eval-script": "failed check",
  "agent-check": "failed check",
};

/** `3 failing test(s)`, `1 lint finding(s)`, `2 build error(s)`: what a gate of this kind reports failing. */
export function countFailures(kind: GateKind, count: number): string {
  return `${count} ${nouns[kind] ?? nouns["eval-script"]}(s)`;
}

const items: Record<GateKind, [singular: string, plural: string]> = {
  "tests-pass": ["test", "tests"],
  "lint-clean": ["lint finding", "lint findings"],
  "build-succeeds": ["build error", "build errors"],
  "eval-script": ["failed check", "failed checks"],
  "agent-check": ["failed check", "failed checks"],
};

/** `2 tests`, `1 lint finding`, `3 build errors`: a count where "failed" is already said. */
export function countItems(kind: GateKind, count: number): string {
  const [singular, plural] = items[kind] ?? items["eval-script"];
  return `${count} ${count === 1 ? singular : plural}`;
}

/**
 * Why a run is red, in a few words: `timed out after 2.0s` (with the gate's timeout when known, else how
 * long it ran), `exit 1`, or `exit 1, 3 failing tests`. Empty for a green run.
 */
export function describeRed(result: GateResult, timeoutMs?: number): string {
  if (result.passed) return "";
  if (result.timedOut) return `timed out after ${formatDuration(timeoutMs ?? result.durationMs)}`;
  if (result.exitCode === null) return result.error ? `did not finish: ${result.error}` : "did not finish";
  const failures = result.failures?.length ? `, ${countFailures(result.kind, result.failures.length)}` : "";
  return `exit ${result.exitCode}${failures}`;
}

const phaseLabels: Record<string, string> = {
  baseline: "baseline",
  grade: "grade",
  recheck: "recheck",
  confirm: "confirm",
};

/** The phase a run belongs to, as a label: baseline, grade, recheck, confirm, confirm 2, ... */
export function phaseLabel(phase: GatePhase): string {
  return phaseLabels[phase] ?? phase.replace("confirm-", "confirm ");
}
