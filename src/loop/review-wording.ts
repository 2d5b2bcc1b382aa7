/** How review rounds read in `show` and the report: one line per round, one per finding. Pure. */
import type { ReviewFinding } from "../core/events.ts";
import type { ReviewRound } from "./state.ts";

/** `  review round 1 of abc123 (2 files): changes_requested, 2 findings, 1 dropped`, then the findings. */
export function describeReviewRound(review: ReviewRound, indent = "  "): string[] {
  const outcome =
    review.status === "reviewed"
      ? `${review.verdict}, ${count(review.findings.length, "finding")}${review.dropped.length > 0 ? `, ${review.dropped.length} dropped` : ""}`
      : `${review.running ? "running" : review.status}${review.error ? `: ${review.error}` : ""}`;
  const retried = review.rejections > 0 ? ` (after ${count(review.rejections, "malformed answer")})` : "";
  const lines = [
    `${indent}review round ${review.round} of ${review.sha.slice(0, 12)} (${count(review.files.length, "file")}): ${outcome}${retried}`,
  ];
  for (const finding of review.findings) lines.push(`${indent}  • ${describeFinding(finding)}`);
  for (const finding of review.dropped)
    lines.push(`${indent}  ✗ dropped ${describeFinding(finding)} (${finding.reason})`);
  return lines;
}

/** `[major] src/a.ts:12: message` */
export function describeFinding(finding: ReviewFinding): string {
  return `[${finding.severity}] ${finding.file}${finding.line ? `:${finding.line}` : ""}: ${finding.message}`;
}

function count(value: number, noun: string): string {
  return `${value} ${noun}${value === 1 ? "" : "s"}`;
}
