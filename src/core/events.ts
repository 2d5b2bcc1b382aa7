/**
 * The timeline's event types. Every step of a loop appends one of these before the next step starts;
 * the state of a loop is a fold over them (see state.ts). Names are `noun_verb` in the past tense.
 * `eventSchemaVersion` is stored with each event; bump it when a payload changes shape, and keep
 * `apply` able to read the older versions.
 */
import type { Budget, GateKind, GateSpec } from "./spec.ts";

/** Tokens a turn used, as its engine reported them. */
export interface TurnUsage {
  inputTokens: number;
  outputTokens: number;
  cachedInputTokens?: number;
}

export const eventSchemaVersion = 1;

export type StopReason =
  | "verified"
  | "budget_exhausted"
  | "no_progress"
  | "circuit_broken"
  | "error"
  | "user_cancelled"
  | "target_reached"
  | "plateau"
  | "ci_failed";

export type VerifierStatus =
  | "ruled"
  | "invalid"
  | "crashed"
  | "timeout"
  | "cancelled"
  | "interrupted"
  | "over_budget";

export type MakerStatus = "completed" | "timeout" | "cancelled" | "crashed" | "interrupted" | "over_budget";

export interface GateResult {
  id: string;
  kind: GateKind;
  command: string;
  phase: GatePhase;
  sha: string;
  exitCode: number | null;
  passed: boolean;
  timedOut: boolean;
  durationMs: number;
  logPath: string;
  tail: string;
  survivorsKilled: number;
  error?: string;
  /** Failing tests by name, from the log's digest (capped); empty when the runner names none. */
  failures?: string[];
  /** How many tests ran, when the runner prints it. */
  testsExecuted?: number;
  /** The test files the failures point at, when every named failure points at one (to narrow a recheck). */
  failureFiles?: string[];
  /**
   * Why a test gate's run does not count as a run of the suite (no test ran, interrupted, crashed): such
   * a run never passes, whatever its exit code and baseline policy.
   */
  incomplete?: string;
  /** A recheck that reran only these failing tests of the graded run (the runner allowed it), not the whole gate. */
  rerunOnly?: string[];
  /** The rendered failure digest (bounded), next to the log. */
  digestPath?: string;
}

/**
 * `baseline`: the gates on the base commit, before the first iteration (iteration 0); `grade`: the
 * iteration's run; `recheck`: a red gate run once more on the same commit (a failure that does not
 * reproduce is a flake); `confirm`, `confirm-2`, ...: the re-runs of green gates before `verified`.
 */
export type GatePhase = "baseline" | "grade" | "recheck" | "confirm" | `confirm-${number}`;

/** The phase name of the Nth confirmation round. */
export function confirmPhase(round: number): GatePhase {
  return round === 1 ? "confirm" : `confirm-${round}`;
}

/** A tamper flag as the loop records it: numbered (`T1`, ...) so the verifier can rule on each. */
export interface RecordedTamperFlag {
  id: string;
  kind: string;
  file?: string;
  line?: number;
  detail: string;
}

/** The verifier's ruling on one tamper flag. */
export interface TamperRuling {
  id: string;
  legitimate: boolean;
  reason: string;
}

/** One gate's ruling in a verdict (the verifier's JSON, validated). */
export interface GateRuling {
  id: string;
  passed: boolean;
  reason?: string;
  evidence: Evidence[];
}
export type Evidence = { file: string; line?: number } | { gate: string; quote: string };

export interface Verdict {
  overall: "pass" | "fail";
  gates: GateRuling[];
  /** One ruling per tamper flag of the iteration; a flag ruled illegitimate makes the verdict fail. */
  tamper?: TamperRuling[];
  notes?: string;
  /** One imperative line the loop should learn from a rejection or an illegitimate tamper flag. */
  lesson?: string;
}

/** How much a reviewer's finding matters, most first. */
export const reviewSeverities = ["blocker", "major", "minor", "nit"] as const;
export type ReviewSeverity = (typeof reviewSeverities)[number];

/** One finding of a review round: a file of the reviewed patch, and a line of it when the finding has one. */
export interface ReviewFinding {
  severity: ReviewSeverity;
  file: string;
  line?: number;
  message: string;
}

/** A finding loopwright set aside (it cites a file or line not in the patch), and why. */
export interface DroppedFinding extends ReviewFinding {
  reason: string;
}

/** `reviewed`: a valid answer; `invalid`: malformed twice (an infrastructure error). */
export type ReviewStatus =
  | "reviewed"
  | "invalid"
  | "crashed"
  | "timeout"
  | "cancelled"
  | "interrupted"
  | "over_budget";

/** One steering change as recorded: the field, and its value before and after. */
export interface SteeringChange {
  field: string;
  old: unknown;
  new: unknown;
}

/**
 * A steering request as the `steer` command files it, already validated and parsed (gates with their
 * defaults, durations in milliseconds), so that applying it never parses again; applied at the next
 * iteration boundary.
 */
export interface SteerRequest {
  goal?: string;
  addGates?: GateSpec[];
  removeGates?: string[];
  budget?: Partial<Budget>;
}

/**
 * Who filed an owner action, recorded in the event as `by`: the CLI with the OS user, the web with the
 * token's name ("loopback" without one), the service itself ("serve"), or a schedule by its name.
 */
export interface Actor {
  via: "cli" | "web" | "service" | "schedule";
  name: string;
}

/** `over_budget`: a turn crossed `maxCostUsdPerIteration`; the loop stops with budget_exhausted. */
export type IterationOutcome = "verified" | "failed" | "infra_error" | "cancelled" | "over_budget";

export interface EventPayloads {
  loop_created: {
    name: string;
    repoRoot: string;
    specPath: string;
    baseSha: string;
    branch: string;
    /** The branch the loop started from (the default pull request base); absent on a detached HEAD. */
    startBranch?: string;
  };
  /** The loop waits for the service to start it (`run`) or go on with it (`resume`), in the order of `at`. */
  loop_queued: { by: Actor; command: "run" | "resume" };
  run_started: { runId: string; pid: number; host: string; command: string };
  run_ended: { runId: string; exit: string };
  processes_swept: { pids: number[]; runIds: string[] };
  engines_resolved: { maker: string; verifier: string; reviewer?: string; warnings: string[] };
  loop_prepared: { makerWorktree: string; gateWorktree: string; baseSha: string };
  setup_ran: {
    worktree: string;
    command: string;
    exitCode: number | null;
    durationMs: number;
    logPath: string;
  };
  /** `by` is absent on events recorded before owner actions named their actor. */
  steer_requested: { request: SteerRequest; by?: Actor };
  steering_applied: { changes: SteeringChange[]; spec: unknown };
  pause_requested: { by?: Actor };
  cancel_requested: { by?: Actor };
  /** The owner resumed the loop in the foreground (a resume through a service is a `loop_queued`). */
  resume_requested: { by: Actor };
  loop_paused: Record<string, never>;
  loop_resumed: Record<string, never>;
  loop_parked: { until: string; spentTodayUsd: number; capUsd: number };
  loop_unparked: Record<string, never>;
  iteration_started: { iteration: number; startSha: string; brief: string; briefPath: string };
  maker_started: {
    iteration: number;
    attempt: number;
    turnNumber: number;
    preservedRef?: string;
    /** Set on a turn that answers a review round's findings: the round, and the brief it was given. */
    reviewRound?: number;
    brief?: string;
    briefPath?: string;
  };
  maker_ended: {
    iteration: number;
    status: MakerStatus;
    account: string;
    exitCode?: number | null;
    error?: string;
    durationMs: number;
    costUsd?: number;
    usage?: TurnUsage;
  };
  commit_created: {
    iteration: number;
    sha: string;
    committed: boolean;
    files: string[];
    /** What the maker did with its checkout's `.git` (switched branch, detached HEAD, replaced it), if anything. */
    makerGit?: string;
  };
  change_screened: {
    iteration: number;
    sha: string;
    changedFiles: string[];
    scopeViolations: { file: string; rule: string }[];
    protectedFiles: string[];
    diffHash: string;
    diffPath: string;
  };
  gate_started: { iteration: number; gateId: string; phase: GatePhase; sha: string };
  gate_ended: { iteration: number; result: GateResult };
  gate_interrupted: { iteration: number; gateId: string; phase: GatePhase };
  tamper_flagged: { iteration: number; flag: RecordedTamperFlag };
  verdict_rejected: { iteration: number; problems: string[]; output: string };
  verifier_started: { iteration: number; sha: string; turnNumber: number };
  verifier_ended: {
    iteration: number;
    status: VerifierStatus;
    verdict?: Verdict;
    /** The verifier's `overall` disagreed with its own rulings: what loopwright derived instead, and why. */
    disagreement?: string;
    error?: string;
    output?: string;
    wroteFiles: string[];
    durationMs: number;
    costUsd?: number;
    usage?: TurnUsage;
  };
  iteration_ended: {
    iteration: number;
    outcome: IterationOutcome;
    failingGates: string[];
    fingerprint?: string;
    repeat: boolean;
    summary: string;
  };
  /** A review round starts: the patch of one maker turn (`fromSha`..`sha`), capped here, whole at `patchPath`. */
  review_started: {
    iteration: number;
    round: number;
    sha: string;
    fromSha: string;
    files: string[];
    patch: string;
    patchPath: string;
  };
  /** The reviewer's answer was malformed: it gets one corrective retry. */
  review_rejected: { iteration: number; round: number; problems: string[]; output: string };
  review_ended: {
    iteration: number;
    round: number;
    status: ReviewStatus;
    verdict?: "ok" | "changes_requested";
    /** The findings that cite the patch: the maker's next brief. */
    findings: ReviewFinding[];
    /** Findings citing a file or line not in the patch. */
    dropped: DroppedFinding[];
    error?: string;
    output?: string;
    durationMs: number;
    costUsd?: number;
    usage?: TurnUsage;
  };
  replan_started: { iteration: number; turnNumber: number };
  replan_ended: {
    iteration: number;
    status: "completed" | "failed" | "interrupted";
    approach?: string;
    hypotheses?: string[];
    /** One imperative line the loop should learn from being stuck. */
    lesson?: string;
    error?: string;
    costUsd?: number;
    usage?: TurnUsage;
  };
  loop_finished: {
    action: "none" | "branch" | "pull-request";
    branch: string;
    sha: string;
    pushed: boolean;
    remote?: string;
    error?: string;
    /** The verified tree is the base's: nothing was pushed and no pull request is opened. */
    unchanged?: boolean;
  };
  /**
   * The pull request step of a `pull-request` finish, after the push: the pull (merge) request of the
   * loop's branch was opened (`created`) or the open one updated, or the attempt failed (`error`).
   * A loop killed before this event finds the open request on resume and updates it: never a duplicate.
   */
  pull_request_recorded: {
    /** Absent when the forge could not be told. */
    forge?: "github" | "gitlab" | "gitea";
    sha: string;
    number?: number;
    url?: string;
    created: boolean;
    error?: string;
    /** Rate limits waited out on the way, one line each. */
    waits?: string[];
  };
  /**
   * A comment on the loop's pull request, seen once (by id, across restarts). One that starts with
   * `/loopwright`, from a user with write access, is a review request: it reopens the loop for a round
   * on the same branch (its text and code context are the next brief). Any other is recorded `ignored`,
   * without its text, and never answered.
   */
  review_comment_received: {
    id: string;
    pullRequest: number;
    author: string;
    kind: "conversation" | "diff";
    url?: string;
    /** Why it is not acted on: not a `/loopwright` command, or its author has no write access. */
    ignored?: string;
    /** The request's text (after `/loopwright`), capped; only for a request. */
    body?: string;
    path?: string;
    line?: number;
    diffHunk?: string;
    /** The lines around `line` on the verified commit, numbered. */
    code?: string;
    thread?: string;
  };
  /** A review request answered on the forge (its reply links the commit, or says why nothing changed). */
  review_comment_answered: {
    id: string;
    /** changed: a verified commit was pushed; unchanged: nothing to change; failed: not verified or not published; limit: `maxRounds` reached. */
    outcome: "changed" | "unchanged" | "failed" | "limit";
    sha?: string;
    reply: string;
    replyUrl?: string;
    /** The reply could not be posted (recorded; the request is still not handled again). */
    error?: string;
  };
  loop_stopped: { reason: StopReason; message: string };
  /** `finish.ci`: the watch of the forge's checks on `sha` began; `deadline` (ISO) bounds it, kept on resume. */
  ci_watch_started: { sha: string; round: number; deadline?: string };
  /** A look at the checks on `sha` whose standing changed; a `passed`, `failed` or `timed_out` standing ends the round. */
  ci_checks_recorded: {
    sha: string;
    standing: CiStanding;
    checks: CiCheckRecord[];
    /** The failed checks' logs as digested, when the standing is `failed`. */
    failures?: CiFailureRecord[];
    /** Rate limits waited out on the way, one line each. */
    waits?: string[];
    /** Why the forge could not be asked, when it could not (the watch goes on until `deadline`). */
    error?: string;
  };
  /** A repair iteration for the failed checks on `sha` is next (round `round` of `finish.ci.maxRepairs`). */
  ci_repair_started: { sha: string; round: number; failures: CiFailureRecord[] };
  /** strategy metric: `samples` runs of the metric command on one commit (0: the base commit). */
  metric_measured: {
    iteration: number;
    phase: "base" | "attempt" | "remeasure";
    sha: string;
    samples: number[];
    median?: number;
    /** Why the measurement failed (the command failed, or printed no match), when it did. */
    error?: string;
    logPaths: string[];
  };
  /** strategy metric: an attempt kept (the branch stays on it) or discarded (the branch reset to `keptSha`, the attempt under `ref`). */
  attempt_judged: {
    iteration: number;
    sha: string;
    kept: boolean;
    median?: number;
    /** The best kept median before this attempt, and the noise floor it had to beat. */
    best: number;
    noise: number;
    keptSha: string;
    ref?: string;
    reason: string;
  };
  /** strategy tasks: the task list as read from the loop's branch before the first iteration. */
  tasks_read: { file: string; format: string; sha: string; tasks: TaskEntry[] };
  /** strategy tasks: loopwright ticked the iteration's verified task in its own commit `sha`. */
  task_completed: { iteration: number; taskId: string; sha: string };
  /** strategy tasks with `onStuck: skip`: the task failed `attempts` times and the loop moves on. */
  task_blocked: { iteration: number; taskId: string; attempts: number; reason: string };
}

/** Where a commit's checks stand: no check at all is `pending`, never `passed`. */
export type CiStanding = "pending" | "passed" | "failed" | "timed_out";

/** One check on a commit as the forge reported it (a check run, a commit status, a pipeline job, an Actions job). */
export interface CiCheckRecord {
  name: string;
  kind: "check-run" | "status" | "pipeline" | "job" | "actions-run";
  state: "pending" | "passed" | "failed" | "skipped";
  url?: string;
}

/** A failed check's log as loopwright read it: where from, the failing tests the digest names, the rendered digest. */
export interface CiFailureRecord {
  check: string;
  url?: string;
  /** `job log`, `job trace`, `check output`, or why there is no log (`status only: …`). */
  logSource: string;
  logPath?: string;
  failures: string[];
  /** The rendered digest (bounded) the repair brief quotes. */
  digest: string;
}

/** One task of a task list: its id (OpenSpec number, story id or position), title and acceptance criteria. */
export interface TaskEntry {
  id: string;
  title: string;
  criteria: string[];
  done: boolean;
}

export type EventType = keyof EventPayloads;

/** A typed event as the controller sees it: the stored envelope narrowed by `type`. */
export type LoopEvent = {
  [K in EventType]: { type: K; seq: number; at: string; data: EventPayloads[K] };
}[EventType];

export const stopReasons: StopReason[] = [
  "verified",
  "budget_exhausted",
  "no_progress",
  "circuit_broken",
  "error",
  "user_cancelled",
  "target_reached",
  "plateau",
  "ci_failed",
];
