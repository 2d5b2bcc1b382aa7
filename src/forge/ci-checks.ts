/**
 * The forge's checks on a commit, the same on every forge: what each check says, where a failed one's
 * log is, and the standing they add up to. No check at all is `pending`, never green.
 */
import type { CiCheckRecord, CiStanding } from "../core/events.ts";

/** A check as a client found it: the record, plus what its client needs to fetch its log. */
export interface CiCheck extends CiCheckRecord {
  /** The forge's id of the job whose log this check's failure is in (GitHub Actions job, GitLab job, Gitea run). */
  logId?: number;
  /** What the forge says about the check when it keeps no log (a check run's output, a status's description). */
  detail?: string;
}

/** A failed check's log, or why there is none (then `text` holds what the forge does say). */
export interface CiLog {
  text: string;
  /** `job log`, `job trace`, `check output`, `status only: …`. */
  source: string;
}

/** The check operations of a forge. Failures throw ForgeRequestError. */
export interface CiClient {
  /** Every check on `sha` (empty when the forge has none yet). */
  checks(sha: string): Promise<CiCheck[]>;
  /** The log of each failed job behind `check` (one for most checks; a Gitea run may have several). */
  failedLogs(check: CiCheck): Promise<CiLog[]>;
}

/**
 * `failed` as soon as one check failed (its log is worth a repair whatever the others do); `passed`
 * when every check is done and at least one passed; else `pending`, including when there is no check.
 */
export function standingOf(checks: readonly CiCheckRecord[]): Exclude<CiStanding, "timed_out"> {
  if (checks.some((check) => check.state === "failed")) return "failed";
  if (checks.some((check) => check.state === "pending")) return "pending";
  return checks.some((check) => check.state === "passed") ? "passed" : "pending";
}

/** GitHub's and Gitea's check-run and Actions shapes: `status` until `completed`, then a `conclusion`. */
export function runState(status: string | null | undefined, conclusion: string | null | undefined) {
  if (status !== "completed") return "pending" as const;
  if (conclusion === "success" || conclusion === "neutral") return "passed" as const;
  if (conclusion === "skipped") return "skipped" as const;
  if (conclusion === "stale" || !conclusion) return "pending" as const;
  return "failed" as const;
}

/** A commit status's state (GitHub `state`, Gitea `status`): error and failure fail; warning passes. */
export function statusState(state: string | null | undefined) {
  if (state === "success" || state === "warning") return "passed" as const;
  if (state === "failure" || state === "error") return "failed" as const;
  return "pending" as const;
}
