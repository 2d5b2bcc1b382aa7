/**
 * `show <loop>`: the gates on the base commit, then each iteration (commit, every gate run labelled by
 * phase, flakes, tamper flags with their class and ruling, verdict, fingerprint, brief size, cost,
 * duration), and the stop reason. Redacted with the secrets of this process's environment (verdicts and
 * summaries quote tool output; the loop redacted them with the secrets its controller knew).
 */
import { getLoop } from "../../app/loop-detail.ts";
import { formatDuration } from "../../core/duration.ts";
import { createAnswerRedactor } from "../../core/redact.ts";
import type { Spec } from "../../core/spec.ts";
import { phaseLabel } from "../../loop/gate-wording.ts";
import type { GateRunSummary } from "../../loop/iteration-summary.ts";
import { describeReviewRound } from "../../loop/review-wording.ts";
import { describeClassedFlag, describeRuling } from "../../loop/tamper-standing.ts";
import { describeDamage } from "../../loop/timeline.ts";
import { writeErr, writeOut } from "../output.ts";
import { appContext, openSession } from "../session.ts";

export async function showCommand(reference: string, options: { json?: boolean }): Promise<number> {
  const session = await openSession();
  try {
    const detail = await getLoop(await appContext(session), reference);
    const redact = createAnswerRedactor();
    if (detail.damaged.length > 0) writeErr(`loopwright: ${describeDamage(detail, detail.damaged)}\n`);
    const spec = detail.spec as unknown as Spec;
    const summary = { id: detail.id, repoRoot: detail.repoRoot, ...detail.summary };
    if (options.json) {
      writeOut(redact(`${JSON.stringify(summary, null, 2)}\n`));
      return 0;
    }
    const out: string[] = [
      `loop ${summary.name} (${summary.id}) in ${summary.repoRoot}`,
      `branch ${summary.branch}`,
    ];
    const reason = summary.verifiedAs ?? summary.stopReason;
    out.push(`status: ${summary.status}${reason ? `: ${reason}: ${summary.stopMessage}` : ""}`);
    if (detail.unappliedSteering) out.push(`note: ${detail.unappliedSteering}`);
    if (summary.baseline.length > 0) {
      out.push(`\nbaseline (the base commit ${detail.baseSha?.slice(0, 12) ?? "–"}):`);
      // A streak runs the suite more than once there: then each run says which it was.
      const several = summary.baseline.some((run) => run.phase !== "baseline");
      for (const run of summary.baseline) out.push(`  ${describeRun(run, several)}`);
    }
    for (const iteration of summary.iterations) {
      const counted = iteration.counted ? "" : " (not counted)";
      out.push(
        `\niteration ${iteration.iteration}: ${iteration.outcome}${counted}${iteration.repeat ? " (repeat)" : ""}${iteration.summary ? `: ${iteration.summary}` : ""}`,
      );
      out.push(
        `  commit ${iteration.commit?.slice(0, 12) ?? "–"}  brief ${iteration.briefBytes} B  cost $${iteration.costUsd.toFixed(2)}  duration ${iteration.durationMs === undefined ? "–" : formatDuration(iteration.durationMs)}`,
      );
      for (const run of iteration.gates) out.push(`  ${describeRun(run, true)}`);
      for (const id of iteration.flaky) {
        const reported = spec.gates.find((gate) => gate.id === id)?.flaky === "report";
        out.push(
          `  ⚠ ${id} is flaky: it passed and failed on the same commit${reported ? " (reported, not blocking)" : " (blocks verified)"}`,
        );
      }
      for (const flag of iteration.tamperFlags) {
        out.push(`  ⚑ ${describeClassedFlag(spec, flag)} — ${describeRuling(flag.ruling)}`);
      }
      for (const review of iteration.reviews) out.push(...describeReviewRound(review));
      if (iteration.verdict) out.push(`  ${iteration.verdict}`);
      if (iteration.fingerprint) out.push(`  fingerprint ${iteration.fingerprint}`);
    }
    if (summary.lessons.length > 0) {
      out.push("\nlessons learned (adopt them into LESSONS.md yourself):");
      for (const lesson of summary.lessons)
        out.push(`  - ${lesson.text} (${lesson.source}, iteration ${lesson.iteration})`);
    }
    const unknown = summary.uncostedTurns > 0 ? ` + ${summary.uncostedTurns} turn(s) of unknown cost` : "";
    out.push(`\ntotal cost $${summary.costUsd.toFixed(2)}${unknown}`);
    writeOut(redact(`${out.join("\n")}\n`));
    return 0;
  } finally {
    await session.store.close();
  }
}

/** `✗ tests [recheck] exit 1, 3 failing tests 1.2s`; the phase label only inside an iteration. */
function describeRun(run: GateRunSummary, withPhase: boolean): string {
  const phase = withPhase ? ` [${phaseLabel(run.phase as Parameters<typeof phaseLabel>[0])}]` : "";
  return `${run.passed ? "✓" : "✗"} ${run.id}${phase}${run.why ? ` ${run.why}` : ""} ${formatDuration(run.durationMs)}`;
}
