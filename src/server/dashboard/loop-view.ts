/**
 * What the dashboard reads about one loop: its record, replayed state and events (through the app
 * layer, and its replay cache in a long-lived server), its display status in the shared vocabulary, and
 * its place in the queue when queued. A loop that cannot be replayed is `damaged`, never thrown.
 */
import { type AppContext, replay } from "../../app/app-context.ts";
import { type DisplayStatus, displayStatus } from "../../app/display-status.ts";
import { listLoops } from "../../app/list-loops.ts";
import { loopStrategyData } from "../../app/loop-report.ts";
import type { LoopEvent } from "../../core/events.ts";
import { ciPhaseInWords } from "../../loop/ci-wording.ts";
import { currentIteration, type LoopState } from "../../loop/state.ts";
import type { StrategyData } from "../../loop/strategies/strategy-data.ts";
import type { DamagedEvent } from "../../loop/timeline.ts";
import type { LoopRecord } from "../../store/store.ts";

export type { DisplayStatus } from "../../app/display-status.ts";

export interface LoopView {
  loop: LoopRecord;
  status: DisplayStatus;
  state?: LoopState;
  events: LoopEvent[];
  damaged: DamagedEvent[];
  /** The last timeline row read (the loop's `seq`, readable or damaged): a newer event changes it. */
  lastSeq: number;
  /** Position in the service's queue (1 = next), when queued. */
  queuePosition?: number;
  /** The strategy's data as the report gives it (runs, tasks, results table), when the loop was read. */
  strategy?: StrategyData;
  /** Why the loop could not be read at all (status `damaged`). */
  problem?: string;
}

export async function readLoopView(context: AppContext, loop: LoopRecord): Promise<LoopView> {
  let read: Awaited<ReturnType<typeof replay>>;
  try {
    read = await replay(context, loop);
  } catch (error) {
    return {
      loop,
      status: "damaged",
      events: [],
      damaged: [],
      lastSeq: 0,
      problem: (error as Error).message,
    };
  }
  const running = (await context.store.lockHolder(loop.id)) !== undefined;
  const status = displayStatus(read.state, running);
  // Only a queued loop needs the others: its position counts the queued loops of every repository.
  const queuePosition =
    status === "queued"
      ? ((await listLoops(context)).loops.find((row) => row.id === loop.id)?.queuePosition ?? undefined)
      : undefined;
  return {
    loop,
    status,
    state: read.state,
    events: read.events,
    damaged: read.damaged,
    lastSeq: read.lastSeq,
    queuePosition,
    strategy: loopStrategyData(read.state),
  };
}

/**
 * What a running loop is doing right now, in words (`maker, iteration 2`, `gates tests, lint (grade),
 * iteration 2`, `verifier, iteration 2`, `baseline gates`, `replanning`); undefined when nothing runs.
 */
export function phaseInWords(state: LoopState): string | undefined {
  if (state.baselineRunning.length > 0) return `baseline gates ${state.baselineRunning.join(", ")}`;
  if (state.replanRunning) return "replanning";
  const iteration = currentIteration(state);
  if (!iteration) return ciPhaseInWords(state);
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

/** The badge tone of a status: a loop stopped `verified` is green, other stops red. */
export function statusTone(status: DisplayStatus, stopReason: string | null | undefined): string {
  return status === "stopped" && stopReason === "verified" ? "verified" : status;
}
