/**
 * One firing's loop: a new loop from the schedule's spec snapshot, named and branched after the firing
 * time, validated as `run` validates (against the repository's current base, resolved now), then queued
 * for the service with `by: {via: "schedule", name}`. A firing that cannot create its loop is settled
 * as `failed` with the reason; only the store failing throws.
 */

import { eventSchemaVersion } from "../../core/events.ts";
import type { LoadedSpec } from "../../core/spec-file.ts";
import { StoreError } from "../../errors.ts";
import { createLoop } from "../../loop/create-loop.ts";
import { preflight } from "../../loop/preflight.ts";
import type { FiringRecord, LoopRecord, Store } from "../../store/store.ts";
import { firingBranch, firingLoopName } from "./firing-names.ts";
import type { UsableSchedule } from "./stored-schedule.ts";

/** What became of a started (or retried) firing. */
export type StartedFiring = { outcome: "started"; loopId: string } | { outcome: "failed"; reason: string };

/**
 * Creates and queues the loop of a `pending` firing and settles the firing. Idempotent: when a process
 * died after creating the loop but before settling, the loop of that name is adopted, not created twice.
 */
export async function startFiring(
  store: Store,
  schedule: UsableSchedule,
  firing: FiringRecord,
): Promise<StartedFiring> {
  const result = await createFiringLoop(store, schedule, firing).catch((error: unknown): StartedFiring => {
    if (error instanceof StoreError) throw error;
    return { outcome: "failed", reason: error instanceof Error ? error.message : String(error) };
  });
  await store.settleFiring(
    firing.id,
    result.outcome,
    result.outcome === "started" ? { loopId: result.loopId } : { reason: result.reason },
  );
  return result;
}

async function createFiringLoop(
  store: Store,
  schedule: UsableSchedule,
  firing: FiringRecord,
): Promise<StartedFiring> {
  const { record, snapshot, rule } = schedule;
  const name = firingLoopName(record.name, new Date(firing.scheduledFor), rule);
  const { schedule: _rule, ...spec } = snapshot.spec;
  const loaded: LoadedSpec = {
    ...snapshot,
    spec: { ...spec, name, branch: firingBranch(snapshot.spec, name) },
    specPath: record.specPath,
  };
  const existing = await store.findLoop(name, record.repoRoot);
  if (existing) return adopt(store, existing, record.name, loaded.spec.branch);
  const check = await preflight(loaded, record.specPath);
  if (check.problems.length > 0 || !check.repoRoot || !check.baseSha)
    return { outcome: "failed", reason: check.problems.join("\n") || "the repository cannot be read" };
  const loop = await createLoop(store, loaded, check.repoRoot, check.baseSha);
  await queue(store, loop.id, record.name);
  return { outcome: "started", loopId: loop.id };
}

/**
 * A loop already carries this firing's name: it is this firing's own when a schedule queued it, or when
 * it was only just created on this firing's branch (the process died before queueing it). Else it is
 * someone else's loop and the firing fails rather than touch it.
 */
async function adopt(
  store: Store,
  loop: LoopRecord,
  scheduleName: string,
  branch: string,
): Promise<StartedFiring> {
  const events = await store.readEvents(loop.id);
  const queuedByThisSchedule = events.some((event) => {
    const by = event.data.by as { via?: unknown; name?: unknown } | undefined;
    return event.type === "loop_queued" && by?.via === "schedule" && by.name === scheduleName;
  });
  if (queuedByThisSchedule) return { outcome: "started", loopId: loop.id };
  const onlyCreated =
    events.length === 1 && events[0].type === "loop_created" && events[0].data.branch === branch;
  if (onlyCreated) {
    await queue(store, loop.id, scheduleName);
    return { outcome: "started", loopId: loop.id };
  }
  return {
    outcome: "failed",
    reason: `a loop named ${loop.name} already exists in ${loop.repoRoot} (id ${loop.id}), not started by this schedule`,
  };
}

async function queue(store: Store, loopId: string, scheduleName: string): Promise<void> {
  await store.appendEvent(
    loopId,
    "loop_queued",
    { by: { via: "schedule", name: scheduleName }, command: "run" },
    eventSchemaVersion,
  );
}
