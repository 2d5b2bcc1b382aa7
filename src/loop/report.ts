/**
 * The final report in Markdown: goal, stop reason, each gate's last result, the verifier's rulings and
 * evidence, the iterations, and the cost. Pure.
 */
import { formatDuration } from "./duration.ts";
import type { Evidence, LoopEvent } from "./events.ts";
import { summarizeLoop } from "./iteration-summary.ts";
import { isDeterministic } from "./spec.ts";
import type { LoopState } from "./state.ts";

export function renderReport(state: LoopState, events: LoopEvent[]): string {
  const summary = summarizeLoop(state, events);
  const lines: string[] = [`# Loop ${state.spec.name}`, "", "## Goal", "", state.spec.goal.trimEnd(), ""];
  lines.push("## Outcome", "");
  lines.push(
    state.stopReason
      ? `**${state.stopReason}**: ${state.stopMessage ?? ""}`
      : `**${state.status}** (not stopped yet)`,
  );
  if (state.finished) {
    lines.push(
      "",
      `Branch \`${state.spec.branch}\` at \`${state.finished.sha.slice(0, 12)}\`${state.finished.pushed ? " (pushed)" : ""}.`,
    );
    if (state.finished.error) lines.push(`Push failed: ${state.finished.error}`);
  }
  const last = [...state.iterations]
    .reverse()
    .find((iteration) => Object.keys(iteration.gates.grade).length > 0);
  lines.push(
    "",
    "## Gates (last graded iteration)",
    "",
    "| gate | kind | result | command |",
    "|---|---|---|---|",
  );
  for (const gate of state.spec.gates) {
    if (!isDeterministic(gate)) {
      const ruling = last?.verifier?.verdict?.gates.find((candidate) => candidate.id === gate.id);
      lines.push(
        `| ${gate.id} | agent-check | ${ruling ? (ruling.passed ? "✓ approved" : "✗ rejected") : "not ruled"} | ${gate.assert} |`,
      );
      continue;
    }
    const result = last?.gates.confirm[gate.id] ?? last?.gates.grade[gate.id];
    const status = !result
      ? "not run"
      : result.passed
        ? "✓ pass"
        : result.timedOut
          ? "✗ timed out"
          : `✗ exit ${result.exitCode}`;
    lines.push(
      `| ${gate.id} | ${gate.kind}${gate.required ? "" : " (informative)"} | ${status} | \`${gate.run}\` |`,
    );
  }
  const verdict = [...state.iterations].reverse().find((iteration) => iteration.verifier?.verdict)
    ?.verifier?.verdict;
  lines.push("", "## Verifier", "");
  if (!verdict) lines.push("The verifier has not ruled.");
  else {
    lines.push(`Overall: **${verdict.overall}**`, "");
    for (const ruling of verdict.gates) {
      lines.push(
        `- ${ruling.passed ? "✓" : "✗"} **${ruling.id}**${ruling.reason ? `: ${ruling.reason}` : ""}`,
      );
      for (const evidence of ruling.evidence) lines.push(`  - ${describeEvidence(evidence)}`);
    }
    if (verdict.notes) lines.push("", `Notes: ${verdict.notes}`);
  }
  lines.push(
    "",
    "## Iterations",
    "",
    "| # | outcome | commit | failing | duration | cost |",
    "|---|---|---|---|---|---|",
  );
  for (const iteration of summary.iterations) {
    const failing =
      state.iterations.find((candidate) => candidate.number === iteration.iteration)?.ended?.failingGates ??
      [];
    lines.push(
      `| ${iteration.iteration} | ${iteration.outcome}${iteration.repeat ? " (repeat)" : ""} | ${iteration.commit?.slice(0, 10) ?? "–"} | ${failing.join(", ") || "–"} | ${iteration.durationMs === undefined ? "–" : formatDuration(iteration.durationMs)} | $${iteration.costUsd.toFixed(2)} |`,
    );
  }
  lines.push("", `Total cost: $${state.costUsd.toFixed(2)}`, "");
  return lines.join("\n");
}

function describeEvidence(evidence: Evidence): string {
  if ("file" in evidence) return `\`${evidence.file}${evidence.line ? `:${evidence.line}` : ""}\``;
  return `gate ${evidence.gate}: “${evidence.quote}”`;
}
