/**
 * The service's schedule tick: for every schedule whose next firing time has come, decide its due
 * firings (firing-times.ts), record them, and start the latest one's loop. A firing whose previous run
 * is still active is recorded as `skipped-active`; earlier due times are recorded as `missed`, never
 * replayed. Cheap when nothing is due: two indexed queries.
 */
import { readState } from "../../loop/timeline.ts";
import type { FiringRecord, NewFiring, ScheduleRecord, Store } from "../../store/store.ts";
import { dueFirings, nextFiring } from "./firing-times.ts";
import { startFiring } from "./start-firing.ts";
import { readStoredSchedule, type UsableSchedule } from "./stored-schedule.ts";

/** A firing decided or finished by this tick, for the service's log. */
export interface FiredFiring {
  scheduleName: string;
  repoRoot: string;
  scheduledFor: string;
  outcome: FiringRecord["outcome"];
  loopId?: string;
  reason?: string;
}

/**
 * Fires what is due at `now` and finishes firings a dead process left `pending`. Never throws for a
 * schedule's own trouble (a damaged row, a spec that no longer validates, a repository gone): that is
 * recorded as a `failed` firing. Throws only when the store itself fails. `home` is the state folder.
 */
export async function fireDueSchedules(
  store: Store,
  home: string,
  now: Date = new Date(),
): Promise<FiredFiring[]> {
  void home; // The loops live in the store; the folder is taken so the service's call stays stable.
  const fired: FiredFiring[] = [];
  for (const firing of await store.pendingFirings()) {
    const record = await store.findSchedule(firing.scheduleId);
    const read = record ? readStoredSchedule(record) : undefined;
    if (!read?.ok) {
      await store.settleFiring(firing.id, "failed", { reason: read?.problem ?? "its schedule is gone" });
      continue;
    }
    fired.push(report(read.schedule.record, firing, await startFiring(store, read.schedule, firing)));
  }
  for (const record of await store.dueSchedules(now.toISOString())) {
    fired.push(...(await fireSchedule(store, record, now)));
  }
  return fired;
}

async function fireSchedule(store: Store, record: ScheduleRecord, now: Date): Promise<FiredFiring[]> {
  const read = readStoredSchedule(record);
  if (!read.ok) {
    // Never due again until registered anew; say why once, as a failed firing at the due time.
    const scheduledFor = record.nextFiringAt ?? now.toISOString();
    const claimed = await store.claimFirings(record.id, {
      expectedConsideredUntil: record.consideredUntil,
      consideredUntil: scheduledFor,
      firings: [{ scheduledFor, outcome: "failed", reason: read.problem }],
    });
    return (claimed ?? []).map((firing) => report(record, firing));
  }
  const schedule = read.schedule;
  const due = dueFirings(schedule.rule, schedule.anchor, new Date(record.consideredUntil), now);
  const firings: NewFiring[] = due.missed.map((time, index) => ({
    scheduledFor: time.toISOString(),
    outcome: "missed",
    ...(index === 0 && due.missedUnlisted ? { reason: "earlier firings were missed too (not listed)" } : {}),
  }));
  const considered = due.latest ?? new Date(record.consideredUntil);
  if (due.latest) {
    const active = await activeRun(store, schedule);
    firings.push(
      active
        ? {
            scheduledFor: due.latest.toISOString(),
            outcome: "skipped-active",
            loopId: active.loopId,
            reason:
              active.status === "interrupted"
                ? `the previous run ${active.loopId} was interrupted and is not finished (the service resumes it)`
                : `the previous run ${active.loopId} is still ${active.status}`,
          }
        : { scheduledFor: due.latest.toISOString(), outcome: "pending" },
    );
  }
  const claimed = await store.claimFirings(record.id, {
    expectedConsideredUntil: record.consideredUntil,
    consideredUntil: considered.toISOString(),
    nextFiringAt: nextFiring(schedule.rule, schedule.anchor, considered)?.toISOString(),
    firings,
  });
  if (!claimed) return []; // Another process decided these firings first.
  const fired: FiredFiring[] = [];
  for (const firing of claimed) {
    fired.push(
      report(
        record,
        firing,
        firing.outcome === "pending" ? await startFiring(store, schedule, firing) : undefined,
      ),
    );
  }
  return fired;
}

/**
 * The schedule's previous run, when it is still active: queued, held by a live controller, or
 * interrupted (marked running with no live controller: the service resumes it, a new run would go over
 * it). The previous run is the loop of its latest `started` firing (a loop removed since is not active).
 */
async function activeRun(
  store: Store,
  schedule: UsableSchedule,
): Promise<{ loopId: string; status: "queued" | "running" | "interrupted" } | undefined> {
  const firings = await store.listFirings(schedule.record.id, 50);
  const previous = firings.find((firing) => firing.outcome === "started" && firing.loopId);
  const loop = previous?.loopId ? await store.findLoop(previous.loopId) : undefined;
  if (!loop || loop.id !== previous?.loopId) return undefined;
  if (await store.lockHolder(loop.id)) return { loopId: loop.id, status: "running" };
  // A run whose timeline cannot be read is not waiting to run: it must not block its schedule forever.
  const state = await readState(store, loop).then(
    ({ state }) => state,
    () => undefined,
  );
  if (state?.queued) return { loopId: loop.id, status: "queued" };
  if (state?.status === "running" && state.runIds.length > 0)
    return { loopId: loop.id, status: "interrupted" };
  return undefined;
}

function report(
  record: ScheduleRecord,
  firing: FiringRecord,
  started?: { outcome: "started"; loopId: string } | { outcome: "failed"; reason: string },
): FiredFiring {
  const settled = started ? { ...firing, ...started } : firing;
  return {
    scheduleName: record.name,
    repoRoot: record.repoRoot,
    scheduledFor: settled.scheduledFor,
    outcome: settled.outcome,
    ...(settled.loopId ? { loopId: settled.loopId } : {}),
    ...(settled.reason ? { reason: settled.reason } : {}),
  };
}
