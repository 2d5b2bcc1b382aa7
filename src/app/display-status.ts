/**
 * The status a loop shows everywhere (ls, the API, the dashboard), from its replayed state and whether
 * a live controller holds it. Pure.
 */
import type { LoopState } from "../loop/state.ts";

export const displayStatuses = [
  "queued",
  "running",
  "interrupted",
  "paused",
  "parked",
  "stopped",
  "created",
  "damaged",
] as const;

/**
 * `queued`: waits for a service to start it; `interrupted`: marked running (or created) but no live
 * controller holds it and it is not queued, so `resume` continues it; `damaged`: its timeline cannot be
 * read. A live holder of a loop not started yet shows `running`.
 */
export type DisplayStatus = (typeof displayStatuses)[number];

export function displayStatus(state: LoopState, running: boolean): DisplayStatus {
  if (running) return state.status === "created" ? "running" : state.status;
  if (state.queued) return "queued";
  if (state.status === "running" || state.status === "created") return "interrupted";
  return state.status;
}

/** What a running loop is doing now: `baseline`, `maker`, `gates`, `verifier`, `replan`; null between steps. */
export type LoopPhase = "baseline" | "maker" | "gates" | "verifier" | "replan";

export function currentPhase(state: LoopState): LoopPhase | null {
  if (state.replanRunning) return "replan";
  if (state.baselineRunning.length > 0) return "baseline";
  const iteration = state.iterations.at(-1);
  if (!iteration || iteration.ended) return null;
  if (iteration.makerRunning) return "maker";
  if (iteration.gatesRunning.length > 0) return "gates";
  if (iteration.verifierRunning) return "verifier";
  return null;
}
