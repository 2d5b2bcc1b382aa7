/**
 * The seam between the supervisor and the schedules: at every tick the supervisor asks for the firings
 * that are due, which queue new loops like any submission.
 */
import type { Store } from "../store/store.ts";

/** Queues a loop for every schedule firing due at `now`; the supervisor starts them with the queue. */
export type FireDueSchedules = (store: Store, now: Date) => Promise<unknown>;

/** Until the schedules land: nothing is ever due. */
export const noSchedules: FireDueSchedules = async () => undefined;
