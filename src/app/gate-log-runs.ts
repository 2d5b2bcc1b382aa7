/**
 * Which gate runs an iteration has (0: the gates' run on the base commit), as `logs`, the API and the
 * dashboard select them; the errors say why an iteration has none.
 */
import type { GateResult } from "../core/events.ts";
import { FieldError, UsageError } from "../errors.ts";
import { allGateResults, type IterationState } from "../loop/state.ts";
import type { ReadLoop } from "./app-context.ts";

/** The runs of one iteration's gates: `number` is the iteration (0: the base commit). */
export interface SelectedGateRuns {
  number: number;
  results: GateResult[];
}

/**
 * The results of iteration `wanted` (default: the last one that ran its gates), only `gate`'s when given.
 * Throws `FieldError` on `iteration` or `gate` for one the loop does not have, or `UsageError` saying why
 * an iteration has no logs (cancelled before its gates ran, ...).
 */
export function selectGateRuns(
  { loop, state }: ReadLoop,
  wanted: number | undefined,
  gate: string | undefined,
): SelectedGateRuns {
  const pointer = `(loopwright logs ${loop.name} --iteration 0: the base commit's)`;
  let number: number;
  let results: GateResult[];
  if (wanted === 0) {
    number = 0;
    results = Object.values(state.baseline);
    if (results.length === 0)
      throw new UsageError(`loop ${loop.name} has not run its gates on the base commit yet`);
  } else {
    const graded = state.iterations.filter((iteration) => allGateResults(iteration).length > 0);
    const iteration =
      wanted === undefined
        ? graded.at(-1)
        : state.iterations.find((candidate) => candidate.number === wanted);
    if (!iteration) {
      if (wanted !== undefined) {
        const message = `loop ${loop.name} has no iteration ${wanted}`;
        throw new FieldError("iteration", message, message);
      }
      const last = state.iterations.at(-1);
      if (last) throw new UsageError(`${describeWithoutLogs(last)} ${pointer}`);
      throw new UsageError(
        `loop ${loop.name} has no gate logs of an iteration yet${Object.keys(state.baseline).length > 0 ? ` ${pointer}` : ""}`,
      );
    }
    results = allGateResults(iteration);
    if (results.length === 0) throw new UsageError(`${describeWithoutLogs(iteration)} ${pointer}`);
    number = iteration.number;
  }
  const selected = gate ? results.filter((result) => result.id === gate) : results;
  if (selected.length === 0) {
    const message = `iteration ${number} has no log for gate '${gate}'`;
    throw new FieldError("gate", message, message);
  }
  return { number, results: selected };
}

/**
 * One run of `gate` in iteration `wanted`: the `phase` one (grade, recheck, baseline...), by default the
 * gate's last run of the iteration. Throws as `selectGateRuns` does, and `FieldError` on `phase`.
 */
export function selectGateRun(
  read: ReadLoop,
  wanted: number | undefined,
  gate: string,
  phase: string | undefined,
): { number: number; result: GateResult } {
  const selected = selectGateRuns(read, wanted, gate);
  const result = phase
    ? selected.results.find((candidate) => candidate.phase === phase)
    : selected.results.at(-1);
  if (!result) {
    const problem = `iteration ${selected.number} has no ${phase} run of gate '${gate}'`;
    throw new FieldError("phase", problem, problem);
  }
  return { number: selected.number, result };
}

/** Why an iteration has no gate logs, from what happened to it: `iteration 3 was cancelled before its gates ran: ...`. */
function describeWithoutLogs(iteration: IterationState): string {
  const name = `iteration ${iteration.number}`;
  const outcome = iteration.ended?.outcome;
  if (!outcome) return `${name} is running and has not finished a gate yet: it has no gate logs`;
  if (outcome === "cancelled") return `${name} was cancelled before its gates ran: it has no gate logs`;
  const why = iteration.ended?.summary ? ` (${iteration.ended.summary})` : "";
  return `${name} ended ${outcome} before its gates ran${why}: it has no gate logs`;
}
