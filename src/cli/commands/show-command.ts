/** `show <loop>`: each iteration (commit, gates, verdict, fingerprint, brief size, cost, duration), the stop reason. */
import { formatDuration } from "../../loop/duration.ts";
import { summarizeLoop } from "../../loop/iteration-summary.ts";
import { describeDamage, readState } from "../../loop/timeline.ts";
import { findLoopOrThrow, openSession } from "../session.ts";

export async function showCommand(reference: string, options: { json?: boolean }): Promise<number> {
  const session = await openSession();
  try {
    const loop = await findLoopOrThrow(session.store, reference);
    const { state, events, damaged } = await readState(session.store, loop);
    if (damaged.length > 0) process.stderr.write(`loopwright: ${describeDamage(loop, damaged)}\n`);
    const summary = { id: loop.id, repoRoot: loop.repoRoot, ...summarizeLoop(state, events) };
    if (options.json) {
      process.stdout.write(`${JSON.stringify(summary, null, 2)}\n`);
      return 0;
    }
    const out: string[] = [
      `loop ${summary.name} (${summary.id}) in ${summary.repoRoot}`,
      `branch ${summary.branch}`,
    ];
    out.push(
      `status: ${summary.status}${summary.stopReason ? `: ${summary.stopReason}: ${summary.stopMessage}` : ""}`,
    );
    for (const iteration of summary.iterations) {
      out.push(
        `\niteration ${iteration.iteration}: ${iteration.outcome}${iteration.repeat ? " (repeat)" : ""}${iteration.summary ? `: ${iteration.summary}` : ""}`,
      );
      out.push(
        `  commit ${iteration.commit?.slice(0, 12) ?? "–"}  brief ${iteration.briefBytes} B  cost $${iteration.costUsd.toFixed(2)}  duration ${iteration.durationMs === undefined ? "–" : formatDuration(iteration.durationMs)}`,
      );
      for (const gate of iteration.gates) {
        const why = gate.passed ? "" : gate.timedOut ? " timed out" : ` exit ${gate.exitCode}`;
        out.push(
          `  ${gate.passed ? "✓" : "✗"} ${gate.id}${gate.phase === "confirm" ? " (re-run)" : ""}${why} ${formatDuration(gate.durationMs)}`,
        );
      }
      if (iteration.verdict) out.push(`  ${iteration.verdict}`);
      if (iteration.fingerprint) out.push(`  fingerprint ${iteration.fingerprint}`);
    }
    const unknown = summary.uncostedTurns > 0 ? ` + ${summary.uncostedTurns} turn(s) of unknown cost` : "";
    out.push(`\ntotal cost $${summary.costUsd.toFixed(2)}${unknown}`);
    process.stdout.write(`${out.join("\n")}\n`);
    return 0;
  } finally {
    await session.store.close();
  }
}
