/**
 * What the dashboard reads about a loop: its record, replayed state and events, and the display status
 * of the shared vocabulary (`queued | running | interrupted | paused | parked | stopped | created |
 * damaged`). One read per request; the store is the only source of truth.
 */
import type { LoopEvent } from "../../core/events.ts";
import { currentIteration, type LoopState } from "../../loop/state.ts";
import { type DamagedEvent, readState } from "../../loop/timeline.ts";
import type { LoopRecord, Store } from "../../store/store.ts";

export type DisplayStatus =
  | "queued"
  | "running"
  | "interrupted"
  | "paused"
  | "parked"
  | "stopped"
  | "created"
  | "damaged";

export interface LoopView {
  loop: LoopRecord;
  status: DisplayStatus;
  state?: LoopState;
  events: LoopEvent[];
  damaged: DamagedEvent[];
  /** Position in the service's queue (1 = next), when queued. */
  queuePosition?: number;
  /** Why the loop could not be read at all (status `damaged`). */
  problem?: string;
}

/** Reads one loop; a loop that cannot be replayed is returned as `damaged`, never thrown. */
export async function readLoopView(store: Store, loop: LoopRecord): Promise<LoopView> {
  let read: Awaited<ReturnType<typeof readState>>;
  try {
    read = await readState(store, loop);
  } catch (error) {
    return { loop, status: "damaged", events: [], damaged: [], problem: (error as Error).message };
  }
  const holder = await store.lockHolder(loop.id);
  return { loop, status: displayStatus(read.state, holder !== undefined), ...read };
}

/** The status a person sees: a loop marked running whose controller is gone was interrupted. */
export function displayStatus(state: LoopState, live: boolean): DisplayStatus {
  if (live) return state.status === "created" ? "running" : state.status;
  return state.status === "running" ? "interrupted" : state.status;
}

/**
 * What a running loop is doing right now, in words (`maker, iteration 2`, `gates tests, lint`,
 * `verifier`, `baseline gates`, `replanning`); undefined when nothing runs.
 */
export function currentPhase(state: LoopState): string | undefined {
  if (state.baselineRunning.length > 0) return `baseline gates ${state.baselineRunning.join(", ")}`;
  if (state.replanRunning) return "replanning";
  const iteration = currentIteration(state);
  if (!iteration) return undefined;
  const at = `iteration ${iteration.number}`;
  if (iteration.makerRunning) return `maker, ${at}`;
  if (iteration.gatesRunning.length > 0) {
    const phases = new Set(iteration.gatesRunning.map((running) => running.phase));
    const ids = [...new Set(iteration.gatesRunning.map((running) => running.gateId))].join(", ");
    return `gates ${ids} (${[...phases].join(", ")}), ${at}`;
  }
  if (iteration.verifierRunning) return `verifier, ${at}`;
  if (!iteration.maker) return `brief, ${at}`;
  if (!iteration.commit) return `commit, ${at}`;
  if (!iteration.screen) return `screen, ${at}`;
  return `deciding, ${at}`;
}

/** Dollars the loop spent on the current UTC day. */
export function costToday(state: LoopState, now: Date = new Date()): number {
  return state.costByDay[now.toISOString().slice(0, 10)] ?? 0;
}
