/** The queue as the store holds it: every queued loop, in the order the service starts them. */
import { readState } from "../loop/timeline.ts";
import { type QueuedEntry, queueOrder } from "../service/queue-order.ts";
import type { Store } from "../store/store.ts";

/**
 * Every loop of every repository that waits for the service, first to start first; a loop whose
 * timeline cannot be read is left out (`ls` names it as damaged).
 */
export async function readQueue(store: Store): Promise<QueuedEntry[]> {
  const entries: QueuedEntry[] = [];
  for (const loop of await store.listLoops()) {
    const read = await readState(store, loop).catch(() => undefined);
    const queued = read?.state.queued;
    if (queued && !(await store.lockHolder(loop.id))) entries.push({ loopId: loop.id, queuedAt: queued.at });
  }
  return queueOrder(entries);
}

/** The loop's place in the queue (from 1), or 0 when it is not queued (started already, or never queued). */
export async function queuePosition(store: Store, loopId: string): Promise<number> {
  return (await readQueue(store)).findIndex((entry) => entry.loopId === loopId) + 1;
}
