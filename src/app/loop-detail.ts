/** One loop's detail: identity, display status, queue position, the spec in force, and its summary. */
import { summarizeLoop } from "../loop/iteration-summary.ts";
import { describeUnappliedSteering } from "../loop/unapplied-steering.ts";
import { type AppContext, readLoop } from "./app-context.ts";
import { currentPhase, displayStatus } from "./display-status.ts";
import type { LoopDetail } from "./schemas/loop-schemas.ts";

/** Throws `LoopNotFoundError`; damaged event rows are skipped and listed in `damaged`. */
export async function getLoop(context: AppContext, reference: string): Promise<LoopDetail> {
  const { loop, state, events, damaged } = await readLoop(context, reference);
  const running = (await context.store.lockHolder(loop.id)) !== undefined;
  const status = displayStatus(state, running);
  const queuePosition = status === "queued" ? await queuePositionOf(context, loop.id) : null;
  const today = new Date().toISOString().slice(0, 10);
  return {
    id: loop.id,
    name: loop.name,
    repoRoot: loop.repoRoot,
    specPath: loop.specPath,
    createdAt: loop.createdAt,
    status,
    queuePosition,
    queued: status === "queued" ? (state.queued ?? null) : null,
    phase: running ? currentPhase(state) : null,
    baseSha: state.baseSha ?? null,
    goal: state.spec.goal,
    spec: state.spec as unknown as Record<string, unknown>,
    pendingSteers: state.pendingSteers.length,
    parkedUntil: state.parkedUntil ?? null,
    costTodayUsd: state.costByDay[today] ?? 0,
    unappliedSteering: describeUnappliedSteering(state) ?? null,
    damaged,
    summary: summarizeLoop(state, events),
  };
}

/**
 * A queued loop's place in the queue, which counts the queued loops of every repository. The list's
 * module (and the queue order's) loads only here: `show` of a loop that is not queued does without.
 */
async function queuePositionOf(context: AppContext, loopId: string): Promise<number | null> {
  const { listLoops } = await import("./list-loops.ts");
  return (await listLoops(context)).loops.find((row) => row.id === loopId)?.queuePosition ?? null;
}
