/**
 * Schedules as both faces see them: the list (next firing, latest firings) and removal. Registering
 * one is `registerSchedule` (src/service/schedules/), reached through `run --detach` of a scheduled spec.
 */
import type { Actor } from "../core/events.ts";
import { ScheduleNotFoundError } from "../errors.ts";
import { listSchedules, type ScheduleView } from "../service/schedules/list-schedules.ts";
import type { AppContext } from "./app-context.ts";
import type { ScheduleRemoved } from "./schemas/schedule-schemas.ts";

/** The schedules of `context.repoRoot` (every repository's with `all`, or without a repository), at `now`. */
export function listScheduleViews(
  context: AppContext,
  options: { all?: boolean; now?: Date; firings?: number } = {},
): Promise<ScheduleView[]> {
  const repoRoot = options.all ? undefined : context.repoRoot;
  return listSchedules(context.store, options.now ?? new Date(), { repoRoot, firings: options.firings });
}

/**
 * Removes a schedule (by id, or by name in `context.repoRoot` first, else a name unique anywhere) and its
 * firings; the loops it started stay. Removal is no event (no loop's timeline holds it): the caller logs
 * `by`. Throws `ScheduleNotFoundError`.
 */
export async function removeSchedule(
  context: AppContext,
  reference: string,
  _by: Actor,
): Promise<ScheduleRemoved> {
  const { store, repoRoot } = context;
  const schedule =
    (await store.findSchedule(reference, repoRoot)) ??
    (repoRoot === undefined ? undefined : await store.findSchedule(reference));
  if (!schedule) {
    const where = repoRoot ? ` in ${repoRoot}` : "";
    throw new ScheduleNotFoundError(
      `no schedule named or with id '${reference}'${where} (see loopwright schedules --all)`,
    );
  }
  await store.deleteSchedule(schedule.id);
  return {
    scheduleId: schedule.id,
    name: schedule.name,
    repoRoot: schedule.repoRoot,
    message: `removed schedule ${schedule.name} of ${schedule.repoRoot}; the loops it started stay (loopwright ls lists them)`,
  };
}
