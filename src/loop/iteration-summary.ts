/**
 * A per-iteration summary of a loop, the shape `show`, `report` and `--json` print: commit, gates,
 * verdict, fingerprint, brief size, cost, duration. Pure over the replayed state and its events.
 */

import type { GateResult, LoopEvent, RecordedTamperFlag, TamperRuling } from "../core/events.ts";
import type { FlagStanding } from "../core/flag-standing.ts";
import { isDeterministic, verifierGateId } from "../core/gate-facts.ts";
import type { TamperClass } from "../core/tamper-flag.ts";
import { assessGate } from "./gate-assessment.ts";
import { describeRed } from "./gate-wording.ts";
import { allGateResults, type Lesson, type LoopState, type ReviewRound } from "./state.ts";
import { describeVerified, legitimateFlagCount, tamperStandings } from "./tamper-standing.ts";

/** One run of one gate: `phase` is baseline, grade, recheck, confirm, confirm-2, ... */
export interface GateRunSummary {
  id: string;
  kind: string;
  phase: string;
  passed: boolean;
  exitCode: number | null;
  timedOut: boolean;
  durationMs: number;
  /** How many failing tests, lint findings or build errors the log's digest named. */
  failureCount: number;
  /** Why it is red, in words (`exit 1, 2 lint findings`, `timed out after 2.0s`); empty when green. */
  why: string;
}

export interface IterationSummary {
  iteration: number;
  outcome: string;
  summary: string;
  commit?: string;
  /** False for an infrastructure error, which does not count against `maxIterations`. */
  counted: boolean;
  gates: GateRunSummary[];
  /** Gates that passed and failed on this iteration's commit. */
  flaky: string[];
  tamperFlags: (RecordedTamperFlag & {
    tamperClass: TamperClass;
    standing: FlagStanding;
    ruling?: TamperRuling;
  })[];
  verdict?: string;
  /** Review rounds by the spec's `review` engine: each round's patch, verdict and findings (kept and dropped). */
  reviews: ReviewRound[];
  fingerprint?: string;
  repeat: boolean;
  briefBytes: number;
  costUsd: number;
  durationMs?: number;
}

export interface LoopSummary {
  name: string;
  status: string;
  stopReason?: string;
  stopMessage?: string;
  /** `verified`, or `verified, 2 tamper flags ruled legitimate`; absent unless verified. */
  verifiedAs?: string;
  /** How many tamper flags of the verified iteration the verifier ruled legitimate (0 unless verified). */
  tamperFlagsRuledLegitimate: number;
  /** The gates' runs on the base commit, before the first iteration. */
  baseline: GateRunSummary[];
  iterations: IterationSummary[];
  costUsd: number;
  /** Turns whose engine reports no cost: `costUsd` is then a lower bound. */
  uncostedTurns: number;
  /** Input and output tokens of every turn whose engine reported them. */
  tokens: { input: number; output: number };
  /** Lessons the loop learned, for the user to adopt into LESSONS.md. */
  lessons: Lesson[];
  branch: string;
  finished?: LoopState["finished"];
}

export function summarizeLoop(state: LoopState, events: LoopEvent[]): LoopSummary {
  return {
    name: state.spec.name,
    status: state.status,
    stopReason: state.stopReason,
    stopMessage: state.stopMessage,
    verifiedAs: state.stopReason === "verified" ? describeVerified(state) : undefined,
    tamperFlagsRuledLegitimate: legitimateFlagCount(state).ruledLegitimate,
    // The baseline, then any further runs on the base commit (a streak's), phase by phase.
    baseline: Object.values(state.baseRuns.gates).flatMap((byGate) =>
      state.spec.gates.flatMap((gate) => (byGate?.[gate.id] ? [summarizeRun(state, byGate[gate.id])] : [])),
    ),
    iterations: state.iterations.map((iteration) => {
      const started = events.find(
        (event) => event.type === "iteration_started" && event.data.iteration === iteration.number,
      );
      const ended = events.find(
        (event) => event.type === "iteration_ended" && event.data.iteration === iteration.number,
      );
      const cost = events.reduce((total, event) => {
        if (
          (event.type === "maker_ended" ||
            event.type === "verifier_ended" ||
            event.type === "review_ended") &&
          event.data.iteration === iteration.number
        ) {
          return total + (event.data.costUsd ?? 0);
        }
        return total;
      }, 0);
      const verdict = iteration.verifier?.verdict?.overall ?? iteration.verifier?.status;
      return {
        iteration: iteration.number,
        outcome: iteration.ended?.outcome ?? "running",
        summary: iteration.ended?.summary ?? "",
        commit: iteration.commit?.sha,
        counted: iteration.ended?.outcome !== "infra_error",
        gates: allGateResults(iteration).map((result) => summarizeRun(state, result)),
        flaky: state.spec.gates
          .filter(
            (gate) =>
              isDeterministic(gate) &&
              assessGate(gate, iteration, state.baseline[gate.id], { confirm: true }).status === "flaky",
          )
          .map((gate) => gate.id),
        tamperFlags: tamperStandings(state.spec, iteration).map((standing) => ({
          ...standing.flag,
          tamperClass: standing.tamperClass,
          standing: standing.standing,
          ruling: standing.ruling,
        })),
        verdict: verdict ? `${verifierGateId}: ${verdict}` : undefined,
        reviews: iteration.reviews,
        fingerprint: iteration.ended?.fingerprint,
        repeat: iteration.ended?.repeat ?? false,
        briefBytes: Buffer.byteLength(iteration.brief),
        costUsd: cost,
        durationMs: started && ended ? Date.parse(ended.at) - Date.parse(started.at) : undefined,
      };
    }),
    costUsd: state.costUsd,
    uncostedTurns: state.uncostedTurns,
    tokens: state.tokens,
    lessons: state.lessons,
    branch: state.spec.branch,
    finished: state.finished,
  };
}

function summarizeRun(state: LoopState, result: GateResult): GateRunSummary {
  const timeout = state.spec.gates.find((gate) => gate.id === result.id)?.timeout;
  return {
    id: result.id,
    kind: result.kind,
    phase: result.phase,
    passed: result.passed,
    exitCode: result.exitCode,
    timedOut: result.timedOut,
    durationMs: result.durationMs,
    failureCount: result.failures?.length ?? 0,
    why: describeRed(result, timeout),
  };
}
