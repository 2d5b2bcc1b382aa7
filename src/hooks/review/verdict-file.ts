/**
 * The review on disk: the reviewer's report verbatim (`.loopwright/review.md`) and the verdict the hook
 * derived from it (`.loopwright/verdict.json`), stamped `writtenBy: "hook"` with the content stamps of
 * the code it reviewed. A verdict is only believed when it is the file the hook wrote (its hash is kept
 * in the hook state, under the state lock) and it still agrees with the report beside it: a verdict
 * file written by anyone else, or a report edited afterwards, is ignored.
 */
import { readFileSync, renameSync, writeFileSync } from "../../files/node-fs.ts";
import type { HookLayout } from "../hook-layout.ts";
import { sha256Hex } from "./content-stamps.ts";
import {
  type DerivedVerdict,
  deriveVerdict,
  formatFinding,
  type ReviewVerdict,
  type Severity,
} from "./findings.ts";

export interface StoredVerdict {
  writtenBy: "hook";
  verdict: ReviewVerdict;
  counts: Record<Severity, number>;
  /** The critical findings as written in the report (at most 20). */
  criticals: string[];
  /** The verdict line the reviewer wrote, if any (never used to decide). */
  claimed?: ReviewVerdict;
  /** The content stamps of the changes the review covered. */
  stamps: { all: string; code: string };
  /** sha256 of review.md as the hook wrote it. */
  reportSha256: string;
  agentType: string;
  sessionId?: string;
  /** ISO time. */
  at: string;
}

export type VerdictReading =
  | { status: "missing" }
  /** A verdict file that cannot be believed, and why. */
  | { status: "ignored"; why: string }
  | { status: "valid"; verdict: StoredVerdict };

/** Where a review stands for the current code: what the Stop hook acts on. Pure. */
export type ReviewStanding =
  | { status: "missing"; ignored?: string }
  | { status: "stale"; verdict: StoredVerdict }
  | { status: "fail"; verdict: StoredVerdict }
  | { status: "pass"; verdict: StoredVerdict };

export interface ReviewRecord {
  report: string;
  derived: DerivedVerdict;
  stamps: { all: string; code: string };
  agentType: string;
  sessionId?: string;
  now: Date;
}

/**
 * Writes the report and the verdict derived from it (each atomically); returns the verdict and the
 * sha256 of verdict.json as written, which the caller keeps in the hook state (under its lock).
 */
export function writeReview(
  layout: HookLayout,
  record: ReviewRecord,
): { verdict: StoredVerdict; verdictSha256: string } {
  const verdict: StoredVerdict = {
    writtenBy: "hook",
    verdict: record.derived.verdict,
    counts: record.derived.counts,
    criticals: record.derived.findings
      .filter((finding) => finding.severity === "CRITICAL")
      .slice(0, 20)
      .map(formatFinding),
    ...(record.derived.claimed ? { claimed: record.derived.claimed } : {}),
    stamps: record.stamps,
    reportSha256: sha256(record.report),
    agentType: record.agentType,
    ...(record.sessionId ? { sessionId: record.sessionId } : {}),
    at: record.now.toISOString(),
  };
  const text = `${JSON.stringify(verdict, null, 2)}\n`;
  writeAtomically(layout.report, record.report);
  writeAtomically(layout.verdict, text);
  return { verdict, verdictSha256: sha256(text) };
}

/** Why a verdict file was refused when it is not the one the hook wrote (the stop tells the user). */
export const forgedVerdictWhy =
  "verdict.json is not the one the hook wrote (its hash differs from the hook's state)";

/**
 * The verdict on disk, believed only if it is the very file the hook wrote (`expectedSha256`, kept in
 * the hook state) and it still matches the report.
 */
export function readVerdict(layout: HookLayout, expectedSha256: string | undefined): VerdictReading {
  let text: string;
  try {
    text = readFileSync(layout.verdict, "utf8");
  } catch {
    return { status: "missing" };
  }
  let stored: Partial<StoredVerdict>;
  try {
    stored = JSON.parse(text);
  } catch {
    return { status: "ignored", why: "verdict.json is not valid JSON" };
  }
  if (stored?.writtenBy !== "hook")
    return { status: "ignored", why: "verdict.json was not written by the hook" };
  if (sha256(text) !== expectedSha256) return { status: "ignored", why: forgedVerdictWhy };
  let report: string;
  try {
    report = readFileSync(layout.report, "utf8");
  } catch {
    return { status: "ignored", why: "the report behind verdict.json is gone" };
  }
  if (sha256(report) !== stored.reportSha256)
    return { status: "ignored", why: "review.md changed after the hook recorded it" };
  const derived = deriveVerdict(report);
  if (!derived || derived.verdict !== stored.verdict || !stored.stamps)
    return { status: "ignored", why: "verdict.json does not match its report" };
  return { status: "valid", verdict: stored as StoredVerdict };
}

/** Where the review stands for code whose stamp is `codeStamp`: stale as soon as the code stamp differs. */
export function reviewStanding(reading: VerdictReading, codeStamp: string): ReviewStanding {
  if (reading.status === "missing") return { status: "missing" };
  if (reading.status === "ignored") return { status: "missing", ignored: reading.why };
  const { verdict } = reading;
  if (verdict.stamps.code !== codeStamp) return { status: "stale", verdict };
  return verdict.verdict === "PASS" ? { status: "pass", verdict } : { status: "fail", verdict };
}

function sha256(text: string): string {
  return sha256Hex(text);
}

function writeAtomically(path: string, text: string): void {
  const temporary = `${path}.${process.pid}.tmp`;
  writeFileSync(temporary, text);
  renameSync(temporary, path);
}
