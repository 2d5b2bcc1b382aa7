/**
 * What the hooks say: block reasons the model reads (precise, actionable) and messages the user sees.
 * Pure text builders.
 */
import type { HookGateResult } from "../hook-gates.ts";
import { describeCounts } from "../review/findings.ts";
import type { StoredVerdict } from "../review/verdict-file.ts";

/** How the reviewer subagent is named where the model launches it. */
export interface ReviewerNaming {
  /** The `subagent_type` to launch, e.g. `loopwright-reviewer` (a plugin's is `loopwright:loopwright-reviewer`). */
  agentType: string;
}

/** One imperative line asked for LESSONS.md, with an example. */
export function lessonRequest(example: string): string {
  return `Then add ONE imperative line to LESSONS.md so that this does not happen again (for example: "- ${example}").`;
}

export function gateFailureReason(failures: HookGateResult[], lesson: string | undefined): string {
  const names = failures.map((failure) => `\`${failure.gate.id}\``).join(", ");
  const parts = [
    `loopwright: the definition of done does not hold: ${failures.length === 1 ? "gate" : "gates"} ${names} failed. Do not stop yet.`,
  ];
  for (const failure of failures) {
    parts.push(
      "",
      `### Gate \`${failure.gate.id}\` (${failure.gate.kind}): \`${failure.gate.run}\` — ${failure.ending}`,
      `Full log: ${failure.logPath}`,
      (failure.digest ?? "").trim(),
    );
  }
  parts.push(
    "",
    `Fix the cause, run ${failures.map((failure) => `\`${failure.gate.run}\``).join(" and ")} yourself until it passes, then finish.`,
  );
  if (lesson) parts.push(lesson);
  return parts.join("\n");
}

export function reviewMissingReason(options: {
  due: string;
  stale: boolean;
  ignored?: string;
  /** Why the reviewer's last message was no valid report. */
  invalidReport?: string;
  codeFiles: string[];
  naming: ReviewerNaming;
  requestPath: string;
}): string {
  const why = options.stale
    ? "the code changed since the last review, so that review no longer counts"
    : "there is no review of the current code";
  const listed = options.codeFiles.slice(0, 20).join(", ");
  const more = options.codeFiles.length > 20 ? ` and ${options.codeFiles.length - 20} more` : "";
  return [
    `loopwright: the work is due for review (${options.due}) and ${why}.`,
    options.ignored ? `(A verdict file was ignored: ${options.ignored}. Only the hook writes verdicts.)` : "",
    options.invalidReport
      ? `The last reviewer gave no valid report (${options.invalidReport}): its final message must be only findings in the grammar \`[SEVERITY] path:line message\`, or exactly \`No findings.\`.`
      : "",
    `Changed files: ${listed}${more}.`,
    `Launch the ${options.naming.agentType} subagent now (Agent tool, subagent_type "${options.naming.agentType}"); it reads ${options.requestPath}.`,
    "Do not write a verdict yourself: the hook derives it from the reviewer's findings. Fix every [CRITICAL] finding it reports, then finish.",
  ]
    .filter((line) => line !== "")
    .join("\n");
}

export function reviewFailedReason(
  verdict: StoredVerdict,
  reportPath: string,
  naming: ReviewerNaming,
  lesson: string | undefined,
): string {
  const claimed =
    verdict.claimed === "PASS"
      ? " (the reviewer wrote VERDICT: PASS; a [CRITICAL] finding overrules it)"
      : "";
  return [
    `loopwright: the review of the current code FAILED${claimed}: ${describeCounts(verdict.counts)}. Report: ${reportPath}`,
    ...verdict.criticals,
    `Fix every [CRITICAL] finding, then launch the ${naming.agentType} subagent again (subagent_type "${naming.agentType}").`,
    lesson ?? "",
  ]
    .filter((line) => line !== "")
    .join("\n");
}

/** For the user: review files the hook did not write (or that were edited since) were refused. */
export function forgedVerdictMessage(verdictPath: string, why: string): string {
  return `loopwright: refused the review files beside ${verdictPath} (${why}); only a report of the reviewer subagent, recorded by the hook, counts.`;
}

export function breakerMessage(blocks: number, reason: string, offPath: string): string {
  const firstLine = reason.split("\n")[0].replace(/^loopwright: /, "");
  return `loopwright: blocked ${blocks} times in a row, so Claude was let stop; the definition of done does NOT hold: ${firstLine} Fix it, or create ${offPath} to switch hook mode off.`;
}

export function workClosedMessage(gateIds: string[], verdict: StoredVerdict | undefined): string {
  const gates = gateIds.length ? `gates ${gateIds.join(", ")} pass` : "no gate to run";
  const review = verdict
    ? `review PASS (${describeCounts(verdict.counts)})`
    : "no code changed, no review needed";
  return `loopwright: definition of done holds: ${gates}; ${review}. Work closed.`;
}

/** For the user, on every prompt and stop: hook mode is installed but has no spec to check. */
export function specMissingMessage(specPath: string): string {
  return `loopwright: hook mode is set up here but loop.yaml is missing (${specPath}): the definition of done is NOT checked. Restore it (\`git checkout HEAD -- loop.yaml\`), or take hook mode out with \`loopwright init claude --remove\`.`;
}

/** For the user, on every prompt while the kill switch is on. */
export function hookOffMessage(offPath: string): string {
  return `loopwright: hook mode is OFF here (${offPath} exists): no gate and no review is checked. Delete that file to switch it back on.`;
}

/** The status line the model reads while the kill switch is on. */
export const hookOffContext =
  "loopwright: hook mode is off in this checkout: no gate and no review will be checked when you stop. Check your work yourself (run the tests).";

export function internalFailureMessage(
  event: string,
  message: string,
  errorsPath: string | undefined,
): string {
  const where = errorsPath ? ` Details: ${errorsPath}` : "";
  return `loopwright hook ${event} failed: ${message}. Claude was not held back, and the definition of done was NOT checked.${where}`;
}
