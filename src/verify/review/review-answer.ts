/**
 * The reviewer's answer: `{"verdict": "ok" | "changes_requested", "findings": [{severity, file, line,
 * message}]}`, validated by a zod schema. A malformed answer (not one JSON value, the wrong shape, or
 * changes requested without a finding) gets one corrective retry, then it is an infrastructure error.
 * A well-formed finding that cites a file or line not in the reviewed patch is not malformed: it is
 * dropped, and recorded with the reason.
 */
import { z } from "zod";
import { type DroppedFinding, type ReviewFinding, reviewSeverities } from "../../core/events.ts";
import type { DiffFile } from "../tamper/unified-diff.ts";

const findingSchema = z
  .object({
    severity: z.enum(reviewSeverities),
    file: z.string().min(1),
    line: z.number().int().positive().optional(),
    message: z.string().trim().min(1),
  })
  .strict();

export const reviewAnswerSchema = z
  .object({
    verdict: z.enum(["ok", "changes_requested"]),
    findings: z.array(findingSchema).default([]),
  })
  .strict();

export type ReviewAnswer = z.infer<typeof reviewAnswerSchema>;

/** The JSON Schema engines that support structured output are given. */
export function reviewAnswerJsonSchema(): unknown {
  return z.toJSONSchema(reviewAnswerSchema, { io: "input" });
}

export type ReviewCheck = { valid: true; answer: ReviewAnswer } | { valid: false; problems: string[] };

/** Reads a reviewer's raw output: one JSON value (alone, or as the last fenced JSON block). */
export function parseReviewAnswer(output: string): ReviewCheck {
  const text = output.trim();
  if (!text)
    return { valid: false, problems: ["the reviewer printed nothing; it must print one JSON answer"] };
  const fenced = [...text.matchAll(/```(?:json)?\s*\n([\s\S]*?)```/g)].at(-1)?.[1];
  let value: unknown;
  let parsed = false;
  for (const candidate of [text, fenced?.trim()]) {
    if (!candidate || parsed) continue;
    try {
      value = JSON.parse(candidate);
      parsed = true;
    } catch {
      // not JSON: try the fenced block
    }
  }
  if (!parsed) {
    const preview = text.length > 120 ? `${text.slice(0, 120)}...` : text;
    return {
      valid: false,
      problems: [`the reviewer's output is not one JSON value: ${JSON.stringify(preview)}`],
    };
  }
  const result = reviewAnswerSchema.safeParse(value);
  if (!result.success) {
    return {
      valid: false,
      problems: result.error.issues.map((issue) => `${issue.path.join(".") || "answer"}: ${issue.message}`),
    };
  }
  if (result.data.verdict === "changes_requested" && result.data.findings.length === 0) {
    return { valid: false, problems: ["findings: changes_requested needs at least one finding"] };
  }
  return { valid: true, answer: result.data };
}

/**
 * Keeps the findings that cite the patch: a file it changes (either side of a rename), and, when a line
 * is given, a line of one of that file's hunks (new-side numbers for added and context lines, old-side
 * numbers for removed ones). The rest are dropped, each with its reason.
 */
export function findingsInPatch(
  findings: readonly ReviewFinding[],
  patch: readonly DiffFile[],
): { kept: ReviewFinding[]; dropped: DroppedFinding[] } {
  const kept: ReviewFinding[] = [];
  const dropped: DroppedFinding[] = [];
  for (const finding of findings) {
    const path = finding.file.replace(/^\.\//, "").replace(/^[ab]\//, "");
    const file = patch.find((candidate) => candidate.path === path || candidate.oldPath === path);
    if (!file) {
      dropped.push({ ...finding, reason: `${finding.file} is not in the patch` });
      continue;
    }
    if (finding.line !== undefined && !patchLines(file).has(finding.line)) {
      dropped.push({ ...finding, reason: `line ${finding.line} of ${file.path} is not in the patch` });
      continue;
    }
    kept.push({ ...finding, file: file.path });
  }
  return { kept, dropped };
}

/** The line numbers a finding may cite in one file of the patch. */
function patchLines(file: DiffFile): Set<number> {
  const lines = new Set<number>();
  for (const hunk of file.hunks) {
    for (const line of hunk.lines) {
      if (line.sign === "-" && line.oldLine !== undefined) lines.add(line.oldLine);
      else if (line.newLine !== undefined) lines.add(line.newLine);
    }
  }
  return lines;
}
