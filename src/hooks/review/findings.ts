/**
 * The reviewer's report and the verdict the hook derives from it. Pure.
 *
 * The grammar, one finding per line: `[CRITICAL] path:line message`, `[WARNING] path:line message`,
 * `[INFO] path:line message` (a list marker before the tag is tolerated). The verdict is never taken
 * from the reviewer: any `[CRITICAL]` tag anywhere in the report means FAIL, whatever verdict line the
 * agent wrote; otherwise the review passes.
 */

export const severities = ["CRITICAL", "WARNING", "INFO"] as const;
export type Severity = (typeof severities)[number];

export interface Finding {
  severity: Severity;
  /** Where, when the line follows the grammar. */
  path?: string;
  line?: number;
  message: string;
  /** False when the line has a tag but no `path:line` after it (it still counts). */
  wellFormed: boolean;
}

export type ReviewVerdict = "PASS" | "FAIL";

export interface DerivedVerdict {
  verdict: ReviewVerdict;
  findings: Finding[];
  counts: Record<Severity, number>;
  /** The verdict line the reviewer wrote (`VERDICT: PASS`), recorded and never used for the decision. */
  claimed?: ReviewVerdict;
}

const tagPattern = /\[(CRITICAL|WARNING|INFO)\]/gi;
const locationPattern = /^`?([^\s`]+?):(\d+)(?:[:-]\d+)?`?(?:\s*[-—–:]\s*|\s+)(.+)$/;
const claimPattern = /^[\s>*_#-]*VERDICT[\s*_]*:[\s*_]*(PASS|FAIL)\b/gim;

/** Every tagged line of `report`; a line with several tags counts once, at its most severe tag. */
export function parseFindings(report: string): Finding[] {
  const findings: Finding[] = [];
  for (const rawLine of report.split("\n")) {
    const tags = [...rawLine.matchAll(tagPattern)].map((match) => match[1].toUpperCase() as Severity);
    if (tags.length === 0) continue;
    const severity = severities.find((candidate) => tags.includes(candidate)) ?? "INFO";
    const afterTag = rawLine.slice(rawLine.search(tagPattern)).replace(/^\[[A-Za-z]+\]\**\s*/, "");
    const located = locationPattern.exec(afterTag.trim());
    if (located) {
      findings.push({
        severity,
        path: located[1],
        line: Number(located[2]),
        message: located[3].trim(),
        wellFormed: true,
      });
    } else {
      findings.push({ severity, message: afterTag.trim(), wellFormed: false });
    }
  }
  return findings;
}

/**
 * The hook's verdict on a report: FAIL when it holds any `[CRITICAL]`, else PASS. Undefined for an
 * empty report: there is nothing to derive a verdict from, so no review is recorded.
 */
export function deriveVerdict(report: string): DerivedVerdict | undefined {
  if (report.trim() === "") return undefined;
  const findings = parseFindings(report);
  const counts: Record<Severity, number> = { CRITICAL: 0, WARNING: 0, INFO: 0 };
  for (const finding of findings) counts[finding.severity]++;
  const claims = [...report.matchAll(claimPattern)];
  const claimed = claims.at(-1)?.[1].toUpperCase() as ReviewVerdict | undefined;
  return {
    verdict: counts.CRITICAL > 0 ? "FAIL" : "PASS",
    findings,
    counts,
    ...(claimed ? { claimed } : {}),
  };
}

/** `2 critical, 1 warning, 0 info`. */
export function describeCounts(counts: Record<Severity, number>): string {
  const plural = (count: number, word: string) => `${count} ${word}${count === 1 ? "" : "s"}`;
  return `${counts.CRITICAL} critical, ${plural(counts.WARNING, "warning")}, ${counts.INFO} info`;
}

/** A finding as the reviewer should have written it. */
export function formatFinding(finding: Finding): string {
  const where = finding.path ? `${finding.path}:${finding.line} ` : "";
  return `[${finding.severity}] ${where}${finding.message}`;
}
