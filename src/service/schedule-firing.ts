/**
 * The seam between the supervisor and the schedules: at every tick the supervisor asks for the firings
 * that are due, which queue new loops like any submission (`loop_queued {by: {via: "schedule"}}`).
 */
import type { Store } from "../store/store.ts";
import { type FiredFiring, fireDueSchedules } from "./schedules/fire-due-schedules.ts";

/** Queues a loop for every schedule firing due at `now`; returns what it fired (for the service's log). */
export type FireDueSchedules = (store: Store, home: string, now: Date) => Promise<FiredFiring[]>;

/** The schedules registered with `run --detach` (the default). */
export const registeredSchedules: FireDueSchedules = fireDueSchedules;

/** No schedule is ever due: for a supervisor that only runs what is queued. */
export const noSchedules: FireDueSchedules = async () => [];

/** One line for the service's log: `schedule nightly (2026-12-01T03:00:00.000Z): started loop-id`. */
export function describeFiring(fired: FiredFiring): string {
  const what = fired.loopId ? `${fired.outcome} ${fired.loopId}` : fired.outcome;
  return `schedule ${fired.scheduleName} (${fired.scheduledFor}): ${what}${fired.reason ? `: ${fired.reason}` : ""}`;
}
