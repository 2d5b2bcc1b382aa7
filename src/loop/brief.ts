/**
 * The maker's brief: a cold-start prompt rebuilt from the timeline for every iteration, so a fresh
 * agent with no memory knows the goal, the checks, what was tried and what failed. Pure.
 */

import { cap } from "../core/cap-text.ts";
import type { GateResult } from "../core/events.ts";
import { flagStanding } from "../core/flag-standing.ts";
import { isDeterministic, verifierGateId } from "../core/gate-facts.ts";
import { passesPolicy } from "../core/gate-status.ts";
import { deriveOverall } from "../verify/derive-overall.ts";
import { ciRepairSection } from "./ci-wording.ts";
import { commentBriefSection } from "./comment-rounds.ts";
import { countFailures } from "./gate-wording.ts";
import { lessonsSection } from "./lessons.ts";
import { workingRules } from "./prompts/working-rules.ts";
import { allGateResults, countedIterations, type IterationState, type LoopState } from "./state.ts";
import { strategyOf } from "./strategies/strategy.ts";
import { describeFlag } from "./tamper-floor.ts";

/** How much of a gate's output tail one brief quotes, per gate. */
const tailLimit = 3000;
/** How many earlier approaches a brief lists. */
const approachesListed = 10;
const lessonsLimit = 8000;

export interface BriefInputs {
  /** The repository's LESSONS.md, when it has one. */
  lessons?: string;
  /** Rendered failure digests of the previous iteration's red gates (before the first: the base commit's), keyed `phase:gate id`. */
  digests?: Record<string, string>;
}

/** The whole brief's share for failure digests: names and anchors first, as many as fit. */
const digestLimit = 64 * 1024;

const phaseNotes: Record<string, string> = {
  grade: "",
  recheck: " again on a re-run",
  confirm: " on the confirmation re-run",
};

/** The red results of an iteration worth showing the maker: each gate's last red run, under its policy. */
export function redResults(state: LoopState, iteration: IterationState): GateResult[] {
  const red = new Map<string, GateResult>();
  for (const result of allGateResults(iteration)) {
    const gate = state.spec.gates.find((candidate) => candidate.id === result.id);
    if (gate && !passesPolicy(gate, result, state.baseline[gate.id]) && !red.has(result.id))
      red.set(result.id, result);
  }
  return [...red.values()];
}

export function buildBrief(state: LoopState, iterationNumber: number, inputs: BriefInputs = {}): string {
  const spec = state.spec;
  const sections: string[] = [];
  const attempt = countedIterations(state) + 1;
  const lost = iterationNumber - attempt;
  const repair = state.ci?.repair;
  const budget =
    spec.budget.maxIterations <= 0
      ? ""
      : repair && attempt > spec.budget.maxIterations
        ? ` (CI repair ${repair.round}: beyond the iteration budget of ${spec.budget.maxIterations}, bounded by finish.ci.maxRepairs)`
        : lost > 0
          ? ` (attempt ${attempt} of at most ${spec.budget.maxIterations}; ${lost} lost to infrastructure errors)`
          : ` of at most ${spec.budget.maxIterations}`;
  sections.push(`# Loop ${spec.name}: iteration ${iterationNumber}${budget}`);
  sections.push(`## Goal\n${spec.goal.trimEnd()}`);
  const request = commentBriefSection(state);
  if (request) sections.push(request);
  sections.push(`## Definition of done\n${definitionOfDone(state)}`);
  sections.push(["## Working rules", workingRules, scopeRules(state)].filter(Boolean).join("\n"));
  const strategySection = strategyOf(spec).briefSection(state, inputs);
  if (strategySection) sections.push(strategySection);
  if (state.unannouncedSteering.length > 0) {
    const lines = state.unannouncedSteering.map(
      (change) => `- ${change.field}: was ${quote(change.old)}, now ${quote(change.new)}`,
    );
    sections.push(`## Steering since the last iteration\nThe user changed the loop:\n${lines.join("\n")}`);
  }
  const baseline = baselineSection(state);
  if (baseline) sections.push(baseline);
  const previous = state.iterations.at(-1);
  if (previous?.ended) sections.push(previousIteration(state, previous, inputs));
  const ciRepair = ciRepairSection(state);
  if (ciRepair) sections.push(ciRepair);
  const approaches = approachesTried(state);
  if (approaches) sections.push(approaches);
  const replan = state.replans.at(-1);
  if (replan?.approach && replan.afterIteration === previous?.number) {
    const hypotheses = (replan.hypotheses ?? []).map((hypothesis) => `- ${hypothesis}`).join("\n");
    sections.push(
      `## Revised approach\nThe last attempts repeated themselves. Take this approach instead:\n${replan.approach}` +
        (hypotheses ? `\n\nHypotheses to test:\n${hypotheses}` : ""),
    );
  }
  const learned = lessonsSection(state);
  if (learned) sections.push(learned);
  if (inputs.lessons?.trim())
    sections.push(
      `## Lessons from this repository (LESSONS.md)\n${cap(inputs.lessons.trim(), lessonsLimit)}`,
    );
  return `${sections.join("\n\n")}\n`;
}

/** Which gates already failed on the base commit: those failures predate the loop. */
function baselineSection(state: LoopState): string | undefined {
  const red = Object.values(state.baseline).filter((result) => !result.passed);
  if (red.length === 0) return undefined;
  const lines = red.map((result) => {
    const names = result.failures ?? [];
    const listed =
      names.length > 0
        ? `: ${names.slice(0, 20).join("; ")}${names.length > 20 ? `; and ${names.length - 20} more` : ""}`
        : "";
    return `- ${result.id} failed there (exit ${result.exitCode}, ${countFailures(result.kind, names.length)})${listed}`;
  });
  return `## Before the loop (the base commit)\nThese failures predate the loop:\n${lines.join("\n")}`;
}

/** The gates as the maker must satisfy them, one line each, and the verifier's approval. */
export function definitionOfDone(state: LoopState): string {
  const lines = state.spec.gates.map((gate) => {
    const optional = gate.required ? "" : " (informative, not required)";
    if (!isDeterministic(gate)) return `- ${gate.id} (${gate.kind})${optional}: ${gate.assert}`;
    const done =
      gate.baseline === "no-new-failures"
        ? "must exit 0, or fail only tests that already failed on the base commit"
        : gate.baseline === "must-improve"
          ? "must exit 0, or fail fewer tests than on the base commit, each of which already failed there"
          : "must exit 0";
    return `- ${gate.id} (${gate.kind})${optional}: \`${gate.run}\` ${done}`;
  });
  lines.push(
    `- ${verifierGateId}: an independent verifier reviews the change against the goal and rules on every gate.`,
  );
  return lines.join("\n");
}

function scopeRules(state: LoopState): string {
  const scope = state.spec.scope;
  const lines: string[] = [];
  if (!(scope.allow.length === 1 && scope.allow[0] === "**"))
    lines.push(`- Change only files matching: ${scope.allow.join(", ")}.`);
  if (scope.deny.length > 0) lines.push(`- Never change files matching: ${scope.deny.join(", ")}.`);
  if (scope.protect.length > 0)
    lines.push(`- Protected (changes are flagged to the verifier): ${scope.protect.join(", ")}.`);
  return lines.join("\n");
}

function previousIteration(state: LoopState, iteration: IterationState, inputs: BriefInputs): string {
  const ended = iteration.ended;
  const lines = [
    `## What happened in iteration ${iteration.number}`,
    `Outcome: ${ended?.outcome} (${ended?.summary}).`,
  ];
  if (iteration.maker?.status === "timeout")
    lines.push("The maker ran out of time: its work so far was committed and graded.");
  if (iteration.commit) lines.push(`Graded commit: ${iteration.commit.sha}.`);
  for (const violation of iteration.screen?.scopeViolations ?? []) {
    lines.push(`- Out of scope: ${violation.file} (${violation.rule}). Revert this change.`);
  }
  const digestBudget = Math.floor(digestLimit / Math.max(1, redResults(state, iteration).length));
  for (const result of redResults(state, iteration)) {
    const gate = state.spec.gates.find((candidate) => candidate.id === result.id);
    const why =
      (result.timedOut ? "timed out" : `exit code ${result.exitCode}`) +
      (result.incomplete ? `; the suite did not run: ${result.incomplete}` : "");
    const when = phaseNotes[result.phase] ?? ` on re-run ${result.phase}`;
    const baseline = gate ? state.baseline[gate.id] : undefined;
    const before = new Set(baseline?.failures ?? []);
    const failing = result.failures ?? [];
    const preexisting = failing.filter((name) => before.has(name));
    const fresh = failing.filter((name) => !before.has(name));
    const origin =
      failing.length === 0
        ? ""
        : `\n${countFailures(result.kind, fresh.length)} new since the base commit${preexisting.length > 0 ? `, ${preexisting.length} already failing there (pre-existing: ${preexisting.slice(0, 10).join(", ")}${preexisting.length > 10 ? ", ..." : ""})` : ""}.`;
    const passedOnRerun =
      gate !== undefined &&
      allGateResults(iteration).some(
        (other) => other.id === result.id && other !== result && passesPolicy(gate, other, baseline),
      );
    const flakyNote = passedOnRerun
      ? `\nFLAKY, not a failure that reproduces: this gate passed and failed on the same commit (${passedRuns(state, iteration, result.id)}). Make it deterministic, or find the race; do not chase this failure as if your change broke it.`
      : "";
    const heading = passedOnRerun ? `is flaky: it failed${when} (${why})` : `failed${when}: ${why}`;
    const digest = inputs.digests?.[`${result.phase}:${result.id}`];
    const body = digest ? cap(digest, digestBudget) : cap(result.tail, tailLimit, "start");
    lines.push(
      `\n### Gate ${result.id} ${heading}\nCommand: \`${result.command}\`\nFull log: ${result.logPath}${origin}${flakyNote}\n` +
        "```\n" +
        body +
        "\n```",
    );
  }
  lines.push(...reviewLines(iteration));
  lines.push(...tamperLines(state, iteration));
  const verdict = iteration.verifier?.verdict;
  if (verdict && deriveOverall(verdict, state.spec.gates).overall !== "pass") {
    lines.push("\n### The verifier did not approve");
    for (const ruling of verdict.gates.filter((gate) => !gate.passed))
      lines.push(`- ${ruling.id}: ${ruling.reason ?? "no reason"}`);
    for (const ruling of verdict.tamper ?? [])
      lines.push(
        `- Tamper flag ${ruling.id} ruled ${ruling.legitimate ? "legitimate" : "NOT legitimate"}: ${ruling.reason}`,
      );
    if (verdict.notes) lines.push(`Notes: ${verdict.notes}`);
  }
  return lines.join("\n");
}

/** The iteration's review rounds, and the findings its last round left open. */
function reviewLines(iteration: IterationState): string[] {
  const rounds = iteration.reviews.filter((review) => review.status === "reviewed");
  if (rounds.length === 0) return [];
  const verdicts = rounds.map((review) => review.verdict).join(", then ");
  const lines = [`\n### Review rounds: ${rounds.length} (${verdicts})`];
  const last = rounds.at(-1);
  if (last?.verdict === "changes_requested" && last.findings.length > 0) {
    lines.push("The last round's findings were not answered before the gates ran:");
    lines.push(...last.findings.map((finding) => `- ${describeFinding(finding)}`));
  }
  return lines;
}

function describeFinding(finding: IterationState["reviews"][number]["findings"][number]): string {
  return `[${finding.severity}] ${finding.file}${finding.line ? `:${finding.line}` : ""}: ${finding.message}`;
}

/** Which runs of a gate passed, as `passed on the recheck`. */
function passedRuns(state: LoopState, iteration: IterationState, gateId: string): string {
  const gate = state.spec.gates.find((candidate) => candidate.id === gateId);
  const phases = allGateResults(iteration)
    .filter((other) => other.id === gateId && gate && passesPolicy(gate, other, state.baseline[gateId]))
    .map((other) => (other.phase === "grade" ? "the graded run" : `the ${other.phase} run`));
  return `passed on ${phases.join(", ")}`;
}

/** The iteration's tamper flags: blocking ones say that they fail the iteration whatever a verifier rules. */
function tamperLines(state: LoopState, iteration: IterationState): string[] {
  return iteration.tamperFlags.map((flag) => {
    const standing = flagStanding(state.spec, flag);
    const note =
      standing === "blocking"
        ? " BLOCKING: loopwright fails every iteration that carries this, whatever the verifier rules; undo it and meet the goal in the code under test."
        : standing === "accepted"
          ? " (blocking, but accepted by this loop's tamper.accept: the verifier rules on it)"
          : "";
    return `- Tamper flag ${describeFlag(flag)}${note}`;
  });
}

function approachesTried(state: LoopState): string | undefined {
  const tried = state.iterations
    .filter((iteration) => iteration.ended && iteration.maker)
    .slice(-approachesListed);
  if (tried.length === 0) return undefined;
  const lines = tried.map((iteration) => {
    const repeat = iteration.ended?.repeat
      ? " [REPEAT: the same change and failures as an earlier iteration]"
      : "";
    const account = iteration.maker?.account.trim() || "(the maker gave no account)";
    return `- Iteration ${iteration.number}${repeat}: ${cap(account.replace(/\s+/g, " "), 600)}`;
  });
  return `## Approaches already tried\nDo not repeat an approach that failed.\n${lines.join("\n")}`;
}

function quote(value: unknown): string {
  return typeof value === "string" ? JSON.stringify(value) : JSON.stringify(value ?? null);
}
