/**
 * `finish.ci`'s part of a loop's state: the rounds of watching the forge's checks and the repairs they
 * started, folded from `ci_watch_started`, `ci_checks_recorded` and `ci_repair_started`. Pure. A repair
 * clears the finish and the pull request step, so that the repair's verified commit is pushed, its pull
 * request updated and its checks watched in turn.
 */
import type { CiCheckRecord, CiFailureRecord, CiStanding, LoopEvent } from "../core/events.ts";
import type { LoopState } from "./state.ts";

/** One watch of the checks on one commit. */
export interface CiRound {
  sha: string;
  round: number;
  startedAt: string;
  deadline?: string;
  standing: CiStanding;
  checks: CiCheckRecord[];
  failures: CiFailureRecord[];
  error?: string;
  /** The last look's time (ISO), when there was one. */
  lastLookAt?: string;
}

export interface CiState {
  rounds: CiRound[];
  /** Repair iterations started so far. */
  repairs: number;
  /** The repair asked for after the last verified iteration, until the next round of watching starts. */
  repair?: { sha: string; round: number; failures: CiFailureRecord[]; afterIteration: number };
}

/** True for a standing that ends a round. */
export function isSettled(standing: CiStanding): boolean {
  return standing !== "pending";
}

export function applyCiEvent(state: LoopState, event: LoopEvent): LoopState {
  const ci = state.ci ?? { rounds: [], repairs: 0 };
  switch (event.type) {
    case "ci_watch_started": {
      const round: CiRound = {
        sha: event.data.sha,
        round: event.data.round,
        startedAt: event.at,
        deadline: event.data.deadline,
        standing: "pending",
        checks: [],
        failures: [],
      };
      return { ...state, ci: { ...ci, rounds: [...ci.rounds, round], repair: undefined } };
    }
    case "ci_checks_recorded": {
      const last = ci.rounds.at(-1);
      if (!last || last.sha !== event.data.sha) return state;
      const updated: CiRound = {
        ...last,
        standing: event.data.standing,
        checks: event.data.checks,
        failures: event.data.failures ?? [],
        error: event.data.error,
        lastLookAt: event.at,
      };
      return { ...state, ci: { ...ci, rounds: [...ci.rounds.slice(0, -1), updated] } };
    }
    case "ci_repair_started":
      return {
        ...state,
        finished: undefined,
        pullRequest: undefined,
        ci: {
          ...ci,
          repairs: ci.repairs + 1,
          repair: {
            sha: event.data.sha,
            round: event.data.round,
            failures: event.data.failures,
            afterIteration: state.iterations.at(-1)?.number ?? 0,
          },
        },
      };
    case "loop_resumed": {
      // A resumed loop that stopped because CI never reported watches again, with a fresh deadline.
      if (ci.rounds.at(-1)?.standing !== "timed_out") return state;
      return { ...state, ci: { ...ci, rounds: ci.rounds.slice(0, -1) } };
    }
    default:
      return state;
  }
}

/** The round watching `sha`, the last one when the same commit was watched twice. */
export function ciRoundOf(state: LoopState, sha: string): CiRound | undefined {
  return state.ci?.rounds.findLast((round) => round.sha === sha);
}
