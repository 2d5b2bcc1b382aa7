/** The order of the queue: who the service starts first, and each queued loop's position in `ls`. */

/** A queued loop: its id and when it was queued (the `at` of its last `loop_queued`). */
export interface QueuedEntry {
  loopId: string;
  queuedAt: string;
}

/** Queued loops in the order the service starts them: by the time they were queued, ties by loop id. */
export function queueOrder<Entry extends QueuedEntry>(entries: Entry[]): Entry[] {
  return [...entries].sort((a, b) =>
    a.queuedAt === b.queuedAt ? compare(a.loopId, b.loopId) : compare(a.queuedAt, b.queuedAt),
  );
}

/** Each queued loop's position in the queue, from 1. */
export function queuePositions(entries: QueuedEntry[]): Map<string, number> {
  return new Map(queueOrder(entries).map((entry, index) => [entry.loopId, index + 1]));
}

function compare(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
