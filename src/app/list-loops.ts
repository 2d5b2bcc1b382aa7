/**
 * The loops list (`ls`, the API's loops, the dashboard's loops page): each loop's display status, queue
 * position, phase, iterations, cost and stop description. One damaged loop is listed as such and named
 * in `warnings`; it never hides the others.
 */
import { describeVerified, legitimateFlagCount } from "../loop/tamper-standing.ts";
import { describeDamage } from "../loop/timeline.ts";
import { queuePositions } from "../service/queue-order.ts";
import type { LoopRecord } from "../store/store.ts";
import { type AppContext, replay } from "./app-context.ts";
import { currentPhase, displayStatus } from "./display-status.ts";
import type { LoopList, LoopListing } from "./schemas/loop-schemas.ts";

/**
 * Every loop, newest first; only those of `repoRoot` when given. Queue positions count the queued loops
 * of every repository: a service runs them all from one queue.
 */
export async function listLoops(context: AppContext, options: { repoRoot?: string } = {}): Promise<LoopList> {
  const { store } = context;
  const loops = await store.listLoops();
  context.cache?.keepOnly(new Set(loops.map((loop) => loop.id)));
  const warnings: string[][] = loops.map(() => []);
  const today = new Date().toISOString().slice(0, 10);
  const rows = await Promise.all(
    loops.map(async (loop, index): Promise<LoopListing> => {
      const read = await replay(context, loop).catch((error: unknown) => error as Error);
      if (read instanceof Error) {
        warnings[index].push(`loop ${loop.name} (${loop.id}) is damaged: ${read.message}`);
        return damagedRow(loop);
      }
      const { state, damaged } = read;
      if (damaged.length > 0) warnings[index].push(describeDamage(loop, damaged));
      const running = (await store.lockHolder(loop.id)) !== undefined;
      const status = displayStatus(state, running);
      return {
        id: loop.id,
        name: loop.name,
        repoRoot: loop.repoRoot,
        status,
        stopReason: state.stopReason ?? null,
        stopDescription:
          state.stopReason === "verified" ? describeVerified(state) : (state.stopReason ?? null),
        tamperFlagsRuledLegitimate: legitimateFlagCount(state).ruledLegitimate,
        iterations: state.iterations.length,
        costUsd: state.costUsd,
        createdAt: loop.createdAt,
        queuePosition: null,
        queuedAt: status === "queued" ? (state.queued?.at ?? null) : null,
        phase: running ? currentPhase(state) : null,
        maxIterations: state.spec.budget.maxIterations,
        costTodayUsd: state.costByDay[today] ?? 0,
        maxCostUsdPerDay: state.spec.budget.maxCostUsdPerDay,
        outcomes: state.iterations.map((iteration) => iteration.ended?.outcome ?? "running"),
      };
    }),
  );
  const positions = queuePositions(
    rows.flatMap((row) => (row.queuedAt ? [{ loopId: row.id, queuedAt: row.queuedAt }] : [])),
  );
  const kept = (loop: { repoRoot: string }) =>
    options.repoRoot === undefined || loop.repoRoot === options.repoRoot;
  return {
    loops: rows.filter(kept).map((row) => ({ ...row, queuePosition: positions.get(row.id) ?? null })),
    warnings: loops.flatMap((loop, index) => (kept(loop) ? warnings[index] : [])),
  };
}

function damagedRow(loop: LoopRecord): LoopListing {
  return {
    id: loop.id,
    name: loop.name,
    repoRoot: loop.repoRoot,
    status: "damaged",
    stopReason: null,
    stopDescription: null,
    tamperFlagsRuledLegitimate: 0,
    iterations: 0,
    costUsd: 0,
    createdAt: loop.createdAt,
    queuePosition: null,
    queuedAt: null,
    phase: null,
    maxIterations: 0,
    costTodayUsd: 0,
    maxCostUsdPerDay: 0,
    outcomes: [],
  };
}
