/** `ls`: loops with their status, iterations and stop reason. */

import { readQueue } from "../../app/read-queue.ts";
import { describeVerified, legitimateFlagCount } from "../../loop/tamper-standing.ts";
import { describeDamage, readState } from "../../loop/timeline.ts";
import { queuePositions } from "../../service/queue-order.ts";
import type { LoopRecord } from "../../store/store.ts";
import { currentRepository, openSession } from "../session.ts";

export async function listCommand(options: { all?: boolean; json?: boolean }): Promise<number> {
  const session = await openSession();
  try {
    const repoRoot = options.all ? undefined : await currentRepository();
    const loops = await session.store.listLoops(repoRoot);
    const rows = await Promise.all(
      loops.map(async (loop) => {
        // One damaged loop is named on stderr and listed as such; it never hides the others.
        const read = await readState(session.store, loop).catch((error: unknown) => error as Error);
        if (read instanceof Error) {
          process.stderr.write(`loopwright: loop ${loop.name} (${loop.id}) is damaged: ${read.message}\n`);
          return damagedRow(loop);
        }
        const { state, damaged } = read;
        if (damaged.length > 0) process.stderr.write(`loopwright: ${describeDamage(loop, damaged)}\n`);
        const holder = await session.store.lockHolder(loop.id);
        // A loop marked running whose controller is gone was interrupted: `resume` continues it.
        // A queued loop waits for the service (`serve`), which starts the queue in submission order.
        const status = holder
          ? state.status === "created"
            ? "running"
            : state.status
          : state.queued
            ? "queued"
            : state.status === "running"
              ? "interrupted"
              : state.status;
        return {
          id: loop.id,
          name: loop.name,
          repoRoot: loop.repoRoot,
          status,
          stopReason: state.stopReason ?? null,
          /** `verified, 2 tamper flags ruled legitimate` for a verified loop, else the stop reason. */
          stopDescription:
            state.stopReason === "verified" ? describeVerified(state) : (state.stopReason ?? null),
          tamperFlagsRuledLegitimate: legitimateFlagCount(state).ruledLegitimate,
          iterations: state.iterations.length,
          costUsd: state.costUsd,
          createdAt: loop.createdAt,
          queuedAt: status === "queued" ? (state.queued?.at ?? null) : null,
          queuePosition: null as number | null,
        };
      }),
    );
    // The queue spans every repository: positions count the queued loops this listing leaves out too.
    const queue = rows.some((row) => row.queuedAt)
      ? repoRoot
        ? await readQueue(session.store)
        : rows.flatMap((row) => (row.queuedAt ? [{ loopId: row.id, queuedAt: row.queuedAt }] : []))
      : [];
    const positions = queuePositions(queue);
    for (const row of rows) row.queuePosition = positions.get(row.id) ?? null;
    if (options.json) {
      process.stdout.write(`${JSON.stringify(rows, null, 2)}\n`);
      return 0;
    }
    if (rows.length === 0) {
      process.stdout.write(
        repoRoot ? `no loops in ${repoRoot} (loopwright ls --all lists every loop)\n` : "no loops\n",
      );
      return 0;
    }
    for (const row of rows) {
      const reason = row.stopDescription
        ? ` (${row.stopDescription})`
        : row.queuePosition
          ? ` (#${row.queuePosition} in the queue)`
          : "";
      const where = options.all ? `  ${row.repoRoot}` : "";
      process.stdout.write(
        `${row.name.padEnd(24)} ${`${row.status}${reason}`.padEnd(30)} ${String(row.iterations).padStart(3)} it  $${row.costUsd.toFixed(2)}  ${row.id}${where}\n`,
      );
    }
    return 0;
  } finally {
    await session.store.close();
  }
}

function damagedRow(loop: LoopRecord) {
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
    queuedAt: null,
    queuePosition: null,
  };
}
