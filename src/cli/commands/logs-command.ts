/** `logs <loop>` prints gate logs; `brief <loop>` prints the exact brief a maker was sent. */

import type { GateResult } from "../../core/events.ts";
import { UsageError } from "../../errors.ts";
import { readRegularFile } from "../../files/read-regular-file.ts";
import { allGateResults, type IterationState, type LoopState } from "../../loop/state.ts";
import { readState } from "../../loop/timeline.ts";
import { findLoopOrThrow, openSession, parseIterationOption } from "../session.ts";

/** Largest log printed (logs are capped at 16 MiB by default). */
const maximumLogBytes = 64 * 1024 * 1024;

/**
 * Prints the gate logs of one iteration: `--iteration 0` is the run on the base commit (the baseline);
 * without `--iteration`, the last iteration that ran its gates. An iteration without logs is named
 * with what happened to it.
 */
export async function logsCommand(
  reference: string,
  options: { iteration?: string; gate?: string },
): Promise<number> {
  const session = await openSession();
  try {
    const loop = await findLoopOrThrow(session.store, reference);
    const { state } = await readState(session.store, loop);
    const wanted = parseIterationOption(options.iteration, 0);
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
        if (wanted !== undefined) throw new UsageError(`loop ${loop.name} has no iteration ${wanted}`);
        const last = state.iterations.at(-1);
        if (last) throw new UsageError(`${describeWithoutLogs(last)} ${pointer}`);
        throw new UsageError(
          `loop ${loop.name} has no gate logs of an iteration yet${state.baseline && Object.keys(state.baseline).length > 0 ? ` ${pointer}` : ""}`,
        );
      }
      results = allGateResults(iteration);
      if (results.length === 0) throw new UsageError(`${describeWithoutLogs(iteration)} ${pointer}`);
      number = iteration.number;
    }
    const selected = options.gate ? results.filter((result) => result.id === options.gate) : results;
    if (selected.length === 0) {
      throw new UsageError(`iteration ${number} has no log for gate '${options.gate}'`);
    }
    const label = number === 0 ? "iteration 0 (the base commit)" : `iteration ${number}`;
    for (const result of selected) {
      // Only a regular file, never through a link: a log a maker replaced by a link to /dev/zero never ends.
      const read = await readRegularFile(result.logPath, { maximumBytes: maximumLogBytes, noFollow: true });
      const text = read.ok
        ? read.text
        : read.code === "ENOENT"
          ? `(log missing: ${result.logPath})\n`
          : `(log not readable: ${result.logPath}: ${read.problem})\n`;
      process.stdout.write(`==> ${label} gate ${result.id} (${result.phase}) ${result.logPath}\n${text}`);
      if (!text.endsWith("\n")) process.stdout.write("\n");
    }
    return 0;
  } finally {
    await session.store.close();
  }
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

export async function briefCommand(reference: string, options: { iteration?: string }): Promise<number> {
  const session = await openSession();
  try {
    const loop = await findLoopOrThrow(session.store, reference);
    const { state } = await readState(session.store, loop);
    const wanted = parseIterationOption(options.iteration, 0);
    if (wanted === 0)
      throw new UsageError(
        `iteration 0 is the gates' run on the base commit: it has no brief (loopwright logs ${loop.name} --iteration 0 prints its logs)`,
      );
    const iteration = findIteration(state, wanted);
    if (!iteration)
      throw new UsageError(
        wanted
          ? `loop ${loop.name} has no iteration ${wanted}`
          : `loop ${loop.name} has not started an iteration yet`,
      );
    process.stdout.write(iteration.brief);
    return 0;
  } finally {
    await session.store.close();
  }
}

function findIteration(state: LoopState, wanted: number | undefined): IterationState | undefined {
  return wanted === undefined
    ? state.iterations.at(-1)
    : state.iterations.find((candidate) => candidate.number === wanted);
}
