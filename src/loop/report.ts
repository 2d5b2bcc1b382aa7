/**
 * The final report in Markdown: goal, stop reason, each gate's last result, the verifier's rulings and
 * evidence, the iterations, and the cost. Pure.
 */
import { formatDuration } from "../core/duration.ts";
import type { Evidence, GateResult, LoopEvent } from "../core/events.ts";
import { flagStanding } from "../core/flag-standing.ts";
import { type GateSpec, isDeterministic } from "../core/spec.ts";
import { ciBodySection } from "./ci-wording.ts";
import { assessGate } from "./gate-assessment.ts";
import { countItems, describeRed } from "./gate-wording.ts";
import { summarizeLoop } from "./iteration-summary.ts";
import { lessonsReport } from "./lessons.ts";
import { describeFinding, describeReviewRound } from "./review-wording.ts";
import { allGateResults, type IterationState, type LoopState, phaseResults } from "./state.ts";
import { strategyOf } from "./strategies/strategy.ts";
import { describeRuling, describeVerified } from "./tamper-standing.ts";

export function renderReport(state: LoopState, events: LoopEvent[]): string {
  const summary = summarizeLoop(state, events);
  const lines: string[] = [`# Loop ${state.spec.name}`, "", "## Goal", "", state.spec.goal.trimEnd(), ""];
  lines.push("## Outcome", "");
  lines.push(
    state.stopReason
      ? `**${state.stopReason === "verified" ? describeVerified(state) : state.stopReason}**: ${state.stopMessage ?? ""}`
      : `**${state.status}** (not stopped yet)`,
  );
  if (state.spec.tamper.accept.length > 0) {
    lines.push(
      "",
      `**Tamper classes accepted by this loop** (their flags went to the verifier instead of failing the iteration): ${state.spec.tamper.accept.join(", ")}. Reason given: ${state.spec.tamper.reason ?? ""}`,
    );
  }
  if (state.finished) {
    lines.push(
      "",
      `Branch \`${state.spec.branch}\` at \`${state.finished.sha.slice(0, 12)}\`${state.finished.pushed ? " (pushed)" : ""}.`,
    );
    if (state.finished.error) lines.push(`Push failed: ${state.finished.error}`);
    if (state.finished.unchanged)
      lines.push("The tree is unchanged: nothing was pushed and no pull request opened.");
    const pull = state.pullRequest;
    if (pull?.error) lines.push(`No pull request: ${pull.error}`);
    else if (pull) lines.push(`Pull request ${pull.created ? "opened" : "updated"}: ${pull.url}`);
  }
  const ci = ciBodySection(state);
  if (ci) lines.push(ci.trimEnd());
  const strategySection = strategyOf(state.spec).reportSection(state);
  if (strategySection.length > 0) lines.push("", ...strategySection);
  const last = [...state.iterations].reverse().find((iteration) => allGateResults(iteration).length > 0);
  lines.push(
    "",
    "## Gates (last graded iteration)",
    "",
    "| gate | kind | result | on the base commit | command |",
    "|---|---|---|---|---|",
  );
  for (const gate of state.spec.gates) {
    if (!isDeterministic(gate)) {
      const ruling = last?.verifier?.verdict?.gates.find((candidate) => candidate.id === gate.id);
      lines.push(
        `| ${gate.id} | agent-check | ${ruling ? (ruling.passed ? "✓ approved" : "✗ rejected") : "not ruled"} | – | ${gate.assert} |`,
      );
      continue;
    }
    const baseline = state.baseline[gate.id];
    const before = !baseline
      ? "not run"
      : baseline.passed
        ? "passed"
        : baseline.timedOut
          ? describeRed(baseline, gate.timeout)
          : baseline.failures?.length
            ? `failed (${countItems(gate.kind, baseline.failures.length)})`
            : `failed (exit ${baseline.exitCode})`;
    lines.push(
      `| ${gate.id} | ${gate.kind}${gate.required ? "" : " (informative)"} | ${last ? describeGate(gate, last, baseline) : "not run"} | ${before} | \`${gate.run}\` |`,
    );
  }
  const flags = last?.tamperFlags ?? [];
  if (flags.length > 0) {
    const rulings = last?.verifier?.verdict?.tamper ?? [];
    lines.push("", "## Tamper flags", "");
    lines.push("BLOCKING flags are decided by loopwright; advisory flags are ruled on by the verifier.", "");
    for (const flag of flags) {
      const ruling = rulings.find((candidate) => candidate.id === flag.id);
      const standing = flagStanding(state.spec, flag);
      const ruled = describeRuling(ruling);
      const verdictText =
        standing === "blocking"
          ? "BLOCKING: failed the iteration (decided by loopwright, not the verifier)"
          : standing === "accepted"
            ? `blocking, ACCEPTED by tamper.accept; ${ruled}`
            : ruled;
      lines.push(
        `- ${flag.id} ${flag.kind}${flag.file ? ` \`${flag.file}${flag.line ? `:${flag.line}` : ""}\`` : ""}: ${flag.detail} — ${verdictText}`,
      );
    }
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
  lines.push(...reviewReport(state));
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
  const unknown =
    state.uncostedTurns > 0 ? `, plus ${state.uncostedTurns} turn(s) whose engine reports no cost` : "";
  const tokens =
    state.tokens.input + state.tokens.output > 0
      ? ` (${state.tokens.input} input and ${state.tokens.output} output tokens)`
      : "";
  lines.push("", `Total cost: $${state.costUsd.toFixed(2)}${unknown}${tokens}`, "");
  lines.push(...lessonsReport(state));
  return lines.join("\n");
}

/** Every review round of every iteration: the patch it read, its verdict, its findings kept and dropped. */
function reviewReport(state: LoopState): string[] {
  const rounds = state.iterations.flatMap((iteration) =>
    iteration.reviews.map((review) => ({ iteration: iteration.number, review })),
  );
  if (rounds.length === 0) return [];
  const engine = state.spec.review
    ? `${state.spec.review.engine}${state.spec.review.model ? ` (${state.spec.review.model})` : ""}`
    : "";
  const lines = [
    "",
    "## Review rounds",
    "",
    `Reviewer: ${engine || "–"}; each round read one maker turn's patch only.`,
    "",
  ];
  for (const { iteration, review } of rounds) {
    const [heading] = describeReviewRound(review, "");
    lines.push(`- Iteration ${iteration}, ${heading.replace(/^review /, "")}; patch \`${review.patchPath}\``);
    for (const finding of review.findings) lines.push(`  - ${describeFinding(finding)}`);
    for (const finding of review.dropped)
      lines.push(`  - dropped: ${describeFinding(finding)} (${finding.reason})`);
  }
  return lines;
}

function describeEvidence(evidence: Evidence): string {
  if ("file" in evidence) return `\`${evidence.file}${evidence.line ? `:${evidence.line}` : ""}\``;
  return `gate ${evidence.gate}: “${evidence.quote}”`;
}

function describeGate(gate: GateSpec, iteration: IterationState, baseline: GateResult | undefined): string {
  const assessment = assessGate(gate, iteration, baseline, { confirm: true });
  const graded = phaseResults(iteration, "grade")[gate.id];
  const origin =
    assessment.preexistingFailures.length > 0
      ? ` (${assessment.newFailures.length} new, ${assessment.preexistingFailures.length} pre-existing failures)`
      : "";
  // With the new and pre-existing split said after it, the count of failures would say it twice.
  const red = !graded
    ? "✗ not run"
    : origin && !graded.timedOut
      ? `✗ exit ${graded.exitCode}`
      : `✗ ${describeRed(graded, gate.timeout)}`;
  switch (assessment.status) {
    case "pass":
      return graded?.passed ? "✓ pass" : `✓ pass under ${gate.baseline}${origin}`;
    case "flaky":
      return `⚠ flaky: passed and failed on the same commit${gate.flaky === "report" ? " (reported, not blocking)" : ""}`;
    case "pending":
      return graded ? (graded.passed ? "✓ pass (not re-run)" : `${red}${origin}`) : "not run";
    default:
      if (graded?.incomplete) return `✗ did not run the suite: ${graded.incomplete}`;
      return `${red}${origin}`;
  }
}

/** Each deterministic gate's standing in the last graded iteration, for `report --json`. */
export function gateStandings(state: LoopState): {
  id: string;
  status: string;
  newFailures: string[];
  preexistingFailures: string[];
  passedOnBase: boolean | null;
}[] {
  const last = [...state.iterations].reverse().find((iteration) => allGateResults(iteration).length > 0);
  return state.spec.gates.filter(isDeterministic).map((gate) => {
    const baseline = state.baseline[gate.id];
    const assessment = last ? assessGate(gate, last, baseline, { confirm: true }) : undefined;
    return {
      id: gate.id,
      status: assessment?.status ?? "not run",
      newFailures: assessment?.newFailures ?? [],
      preexistingFailures: assessment?.preexistingFailures ?? [],
      passedOnBase: baseline ? baseline.passed : null,
    };
  });
}
