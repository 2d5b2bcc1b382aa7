/** `logs <loop>` prints gate logs; `brief <loop>` prints the exact brief a maker was sent. */
import { readFile } from "node:fs/promises";
import { UsageError } from "../../errors.ts";
import { allGateResults } from "../../loop/state.ts";
import { readState } from "../../loop/timeline.ts";
import { findLoopOrThrow, openSession, parseIterationOption } from "../session.ts";

export async function logsCommand(
  reference: string,
  options: { iteration?: string; gate?: string },
): Promise<number> {
  const session = await openSession();
  try {
    const loop = await findLoopOrThrow(session.store, reference);
    const { state } = await readState(session.store, loop);
    const wanted = parseIterationOption(options.iteration);
    const graded = state.iterations.filter((iteration) => allGateResults(iteration).length > 0);
    const iteration =
      wanted === undefined
        ? graded.at(-1)
        : state.iterations.find((candidate) => candidate.number === wanted);
    if (!iteration)
      throw new UsageError(
        wanted ? `loop ${loop.name} has no iteration ${wanted}` : `loop ${loop.name} has no gate logs yet`,
      );
    const results = allGateResults(iteration);
    const selected = options.gate ? results.filter((result) => result.id === options.gate) : results;
    if (selected.length === 0) {
      throw new UsageError(`iteration ${iteration.number} has no log for gate '${options.gate}'`);
    }
    for (const result of selected) {
      const text = await readFile(result.logPath, "utf8").catch(() => `(log missing: ${result.logPath})\n`);
      process.stdout.write(
        `==> iteration ${iteration.number} gate ${result.id} (${result.phase}) ${result.logPath}\n${text}`,
      );
      if (!text.endsWith("\n")) process.stdout.write("\n");
    }
    return 0;
  } finally {
    await session.store.close();
  }
}

export async function briefCommand(reference: string, options: { iteration?: string }): Promise<number> {
  const session = await openSession();
  try {
    const loop = await findLoopOrThrow(session.store, reference);
    const { state } = await readState(session.store, loop);
    const wanted = parseIterationOption(options.iteration);
    const iteration =
      wanted === undefined
        ? state.iterations.at(-1)
        : state.iterations.find((candidate) => candidate.number === wanted);
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
