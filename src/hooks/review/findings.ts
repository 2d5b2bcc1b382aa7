/**
 * The reviewer's report and the verdict the hook derives from it. Pure.
 *
 * The grammar, one finding per line: `[CRITICAL] path:line message`, `[WARNING] path:line message`,
 * `[INFO] path:line message` (a list marker before the tag is tolerated). The verdict is never taken
 * from the reviewer: a `[CRITICAL]` finding means FAIL, whatever verdict line the agent wrote; a PASS
 * needs a report that follows the grammar (see `judgeReport`).
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
const locationPattern = /^`?([^\s`]+?):(\d+)(?:[:-]\d+)?`?(?:\s*[-\u2014\u2013:]\s*|\s+)(.+)$/;
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

/** What the hook makes of a reviewer's final message. */
export type ReportJudgement =
  | { kind: "verdict"; derived: DerivedVerdict }
  /** Not a report: no verdict is recorded and the review is asked for again. */
  | { kind: "invalid"; why: string };

/** The one line that says the reviewer found nothing (a trailing period optional). */
const noFindingsPattern = /^[\s>*_-]*no findings\.?[\s*_]*$/i;

/**
 * The hook's verdict on a report. A finding in the grammar with a `[CRITICAL]` tag means FAIL,
 * whatever else the report says. A PASS needs a well-formed report: every line a finding in the
 * grammar, the verdict line, or exactly `No findings.`, and at least one finding or that line.
 * Anything else (a message that is no report, a bracketless `CRITICAL:`, a tag without `path:line`
 * such as "No [CRITICAL] findings.") is no valid report.
 */
export function judgeReport(report: string): ReportJudgement {
  if (report.trim() === "") return { kind: "invalid", why: "the report is empty" };
  const findings = parseFindings(report);
  const counts: Record<Severity, number> = { CRITICAL: 0, WARNING: 0, INFO: 0 };
  for (const finding of findings) if (finding.wellFormed) counts[finding.severity]++;
  const claims = [...report.matchAll(claimPattern)];
  const claimed = claims.at(-1)?.[1].toUpperCase() as ReviewVerdict | undefined;
  const derived = (verdict: ReviewVerdict): ReportJudgement => ({
    kind: "verdict",
    derived: {
      verdict,
      findings: findings.filter((finding) => finding.wellFormed),
      counts,
      ...(claimed ? { claimed } : {}),
    },
  });
  if (counts.CRITICAL > 0) return derived("FAIL");
  let noFindingsLine = false;
  for (const rawLine of report.split("\n")) {
    const line = rawLine.trim();
    if (line === "" || new RegExp(claimPattern.source, "i").test(line)) continue;
    if (noFindingsPattern.test(line)) {
      noFindingsLine = true;
      continue;
    }
    const shown = line.length > 80 ? `${line.slice(0, 77)}...` : line;
    if (new RegExp(tagPattern.source, "i").test(line)) {
      const finding = parseFindings(line)[0];
      if (finding?.wellFormed) continue;
      return { kind: "invalid", why: `a tag outside the grammar (no path:line after it): "${shown}"` };
    }
    return { kind: "invalid", why: `a line that is not a finding in the grammar: "${shown}"` };
  }
  if (findings.length === 0 && !noFindingsLine)
    return { kind: "invalid", why: "neither a finding nor the line `No findings.`" };
  return derived("PASS");
}

/** The verdict of a well-formed report; undefined when it is no valid report (see `judgeReport`). */
export function deriveVerdict(report: string): DerivedVerdict | undefined {
  const judged = judgeReport(report);
  return judged.kind === "verdict" ? judged.derived : undefined;
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
