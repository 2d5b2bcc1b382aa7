/**
 * A per-iteration summary of a loop, the shape `show`, `report` and `--json` print: commit, gates,
 * verdict, fingerprint, brief size, cost, duration. Pure over the replayed state and its events.
 */
import type { LoopEvent, RecordedTamperFlag } from "./events.ts";
import { verifierGateId } from "./spec.ts";
import { allGateResults, type LoopState } from "./state.ts";

export interface IterationSummary {
  iteration: number;
  outcome: string;
  summary: string;
  commit?: string;
  gates: {
    id: string;
    phase: string;
    passed: boolean;
    exitCode: number | null;
    timedOut: boolean;
    durationMs: number;
  }[];
  tamperFlags: RecordedTamperFlag[];
  verdict?: string;
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
  iterations: IterationSummary[];
  costUsd: number;
  /** Turns whose engine reports no cost: `costUsd` is then a lower bound. */
  uncostedTurns: number;
  /** Input and output tokens of every turn whose engine reported them. */
  tokens: { input: number; output: number };
  branch: string;
  finished?: LoopState["finished"];
}

export function summarizeLoop(state: LoopState, events: LoopEvent[]): LoopSummary {
  return {
    name: state.spec.name,
    status: state.status,
    stopReason: state.stopReason,
    stopMessage: state.stopMessage,
    iterations: state.iterations.map((iteration) => {
      const started = events.find(
        (event) => event.type === "iteration_started" && event.data.iteration === iteration.number,
      );
      const ended = events.find(
        (event) => event.type === "iteration_ended" && event.data.iteration === iteration.number,
      );
      const cost = events.reduce((total, event) => {
        if (
          (event.type === "maker_ended" || event.type === "verifier_ended") &&
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
        gates: allGateResults(iteration).map((result) => ({
          id: result.id,
          phase: result.phase,
          passed: result.passed,
          exitCode: result.exitCode,
          timedOut: result.timedOut,
          durationMs: result.durationMs,
        })),
        tamperFlags: iteration.tamperFlags,
        verdict: verdict ? `${verifierGateId}: ${verdict}` : undefined,
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
    branch: state.spec.branch,
    finished: state.finished,
  };
}
