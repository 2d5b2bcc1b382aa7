/**
 * Registering a scheduled spec: what `run --detach` (and the API) do with a spec that has `schedule:`
 * instead of queueing one run. Validated exactly as `run` validates, then stored; a schedule of the
 * same name in the same repository is replaced, and the caller is told what it replaced.
 */

import type { ScheduleRule } from "../../core/schedule-field.ts";
import type { LoadedSpec, ParsedSpec } from "../../core/spec-file.ts";
import { SpecError, UsageError } from "../../errors.ts";
import { preflight } from "../../loop/preflight.ts";
import type { ScheduleRecord, Store } from "../../store/store.ts";
import { nextFiring } from "./firing-times.ts";

export interface Registration {
  schedule: ScheduleRecord;
  rule: ScheduleRule;
  /** The schedule this one replaced (same name, same repository), as it was. */
  replaced?: ScheduleRecord;
  /** The first firing time, or undefined when the rule never fires (validation makes that rare). */
  nextFiringAt?: Date;
  /** What will work but probably not as meant (as `validate` prints them). */
  warnings: string[];
}

/**
 * Validates `loaded` as `run` does (`label` names the spec in problems; throws `SpecError` listing them)
 * and registers its schedule in the store at `now`. Nothing fires before the first firing time after `now`.
 * Throws `UsageError` when the spec has no `schedule:`.
 */
export async function registerSchedule(
  store: Store,
  loaded: LoadedSpec,
  label: string,
  now: Date = new Date(),
): Promise<Registration> {
  const rule = loaded.spec.schedule;
  if (!rule) throw new UsageError(`${label}: has no schedule: field to register`);
  const check = await preflight(loaded, label);
  if (check.problems.length > 0 || !check.repoRoot) throw new SpecError(check.problems);
  // Whole seconds: firing times of an `every` rule count from here, and read better without milliseconds.
  const at = new Date(Math.floor(now.getTime() / 1000) * 1000);
  const next = nextFiring(rule, at, at);
  const snapshot: ParsedSpec = {
    spec: loaded.spec,
    specDirectory: loaded.specDirectory,
    repoPath: loaded.repoPath,
  };
  const saved = await store.saveSchedule(
    {
      name: loaded.spec.name,
      repoRoot: check.repoRoot,
      specPath: loaded.specPath,
      spec: snapshot,
      rule,
      consideredUntil: at.toISOString(),
      nextFiringAt: next?.toISOString(),
    },
    at.toISOString(),
  );
  return {
    schedule: saved.schedule,
    rule,
    replaced: saved.replaced,
    nextFiringAt: next,
    warnings: check.warnings,
  };
}
