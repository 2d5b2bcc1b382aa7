/**
 * The brief of a maker turn that answers a review round: the goal, the reviewer's findings on the
 * patch of the turn before, and the working rules. The turn continues from the reviewed commit, in the
 * same iteration; the gates run once the rounds are over. Pure.
 */
import { cap } from "../core/cap-text.ts";
import type { ReviewFinding } from "../core/events.ts";
import { definitionOfDone } from "./brief.ts";
import { lessonsSection } from "./lessons.ts";
import { workingRules } from "./prompts/working-rules.ts";
import type { LoopState } from "./state.ts";

/** How much of the reviewer's findings one brief quotes. */
const findingsLimit = 24_000;

export function buildReworkBrief(state: LoopState, iterationNumber: number, reviewRound: number): string {
  const spec = state.spec;
  const iteration = state.iterations.find((candidate) => candidate.number === iterationNumber);
  const round = iteration?.reviews.find((candidate) => candidate.round === reviewRound);
  const rounds = spec.review?.rounds ?? reviewRound;
  const sections = [
    `# Loop ${spec.name}: iteration ${iterationNumber}, answering review round ${reviewRound} of at most ${rounds}`,
    `## Goal\n${spec.goal.trimEnd()}`,
    `## A reviewer asked for changes\nAn independent reviewer (${spec.review?.engine ?? "another engine"}) read the patch of your last turn (commit ${round?.sha.slice(0, 12) ?? "?"}) and asked for changes. Your last turn's work is committed and is in your checkout: continue from it. Address every finding in the code; where you disagree with one, say why in your final message. The gates run once the review rounds are over.\n\n${cap(describeFindings(round?.findings ?? []), findingsLimit)}`,
    `## Definition of done (checked after the review rounds)\n${definitionOfDone(state)}`,
    ["## Working rules", workingRules].join("\n"),
  ];
  const lessons = lessonsSection(state);
  if (lessons) sections.push(lessons);
  return `${sections.join("\n\n")}\n`;
}

/** Numbered findings, as `1. [major] src/a.ts:12: message`. */
export function describeFindings(findings: readonly ReviewFinding[]): string {
  return findings
    .map(
      (finding, index) =>
        `${index + 1}. [${finding.severity}] ${finding.file}${finding.line ? `:${finding.line}` : ""}: ${finding.message}`,
    )
    .join("\n");
}
