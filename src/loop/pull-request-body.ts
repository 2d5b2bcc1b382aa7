/**
 * The title and body of a verified loop's pull request: the evidence, as the final report has it (goal,
 * each gate on the verified commit and on the base, the verifier's rulings with evidence, tamper and
 * flake notes, iterations, cost), under a line that says loopwright never merges. Pure.
 */
import type { LoopEvent } from "../core/events.ts";
import { renderReport } from "./report.ts";
import type { LoopState } from "./state.ts";

/** Forges cap a body (GitHub at 65,536 characters); the evidence is cut well below that. */
const maxBodyCharacters = 60_000;

export function pullRequestTitle(state: LoopState): string {
  const firstLine = state.spec.goal.trim().split("\n")[0].trim();
  const title = `${state.spec.name}: ${firstLine}`;
  return title.length > 100 ? `${title.slice(0, 99)}…` : title;
}

export function pullRequestBody(state: LoopState, events: LoopEvent[], dashboardUrl?: string): string {
  const sha = state.finished?.sha ?? "";
  const lines = [
    `Opened by loopwright: loop **${state.spec.name}** verified commit \`${sha.slice(0, 12)}\`. loopwright never merges; review and merge it yourself.`,
  ];
  if (dashboardUrl) lines.push("", `Dashboard: ${dashboardUrl}`);
  const report = renderReport(state, events)
    .replace(/^# .*\n/, "")
    .replace(/^## /gm, "### ");
  const body = `${lines.join("\n")}\n${report}`;
  return body.length > maxBodyCharacters
    ? `${body.slice(0, maxBodyCharacters)}\n\n… (cut; the full report: \`loopwright report ${state.spec.name}\`)`
    : body;
}
