/** The text of `.loopwright/review-request.md`, read by the reviewer subagent. Pure. */

export interface ReviewRequestText {
  base: string;
  codeFiles: string[];
  proseFiles: string[];
  /** The spec's agent-check assertions. */
  criteria: string[];
  diff: string;
  diffCut: boolean;
}

export function renderReviewRequest(request: ReviewRequestText): string {
  const list = (paths: string[]) => (paths.length ? paths.map((path) => `- ${path}`).join("\n") : "(none)");
  const sections = [
    "# Review request",
    "",
    "Written by loopwright's hook for the loopwright-reviewer subagent. Review the changes of this",
    `working tree since ${request.base.slice(0, 12)}: the files listed here, as they are now on disk`,
    "(read them: the diff below may be cut). Files missing from the diff are new: read them whole.",
    "",
    "## Changed files",
    list(request.codeFiles),
    "",
    "## Changed prose (inert: review it only where it describes behaviour wrongly)",
    list(request.proseFiles),
  ];
  if (request.criteria.length > 0)
    sections.push(
      "",
      "## Acceptance criteria (from loop.yaml): a criterion that does not hold is a [CRITICAL] finding",
      ...request.criteria.map((criterion) => `- ${criterion}`),
    );
  sections.push(
    "",
    "## Diff",
    "```diff",
    request.diff.trimEnd(),
    "```",
    request.diffCut ? "(The diff was cut at 200 KiB: read the files for the rest.)" : "",
  );
  return `${sections.join("\n").trimEnd()}\n`;
}
