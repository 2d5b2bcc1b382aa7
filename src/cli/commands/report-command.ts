/** `report <loop>`: the final report in Markdown (or its data with --json). */
import { summarizeLoop } from "../../loop/iteration-summary.ts";
import { gateStandings, renderReport } from "../../loop/report.ts";
import { readState } from "../../loop/timeline.ts";
import { findLoopOrThrow, openSession } from "../session.ts";

export async function reportCommand(reference: string, options: { json?: boolean }): Promise<number> {
  const session = await openSession();
  try {
    const loop = await findLoopOrThrow(session.store, reference);
    const { state, events } = await readState(session.store, loop);
    if (options.json) {
      const verdict = [...state.iterations].reverse().find((iteration) => iteration.verifier?.verdict)
        ?.verifier?.verdict;
      const report = {
        goal: state.spec.goal,
        ...summarizeLoop(state, events),
        gateStandings: gateStandings(state),
        verdict: verdict ?? null,
      };
      process.stdout.write(`${JSON.stringify(report, null, 2)}\n`);
    } else {
      process.stdout.write(renderReport(state, events));
    }
    return 0;
  } finally {
    await session.store.close();
  }
}
