/**
 * A loop's state, derived only from its spec snapshot and its timeline: `replay(spec, events)` is
 * `events.reduce(apply, initialState(spec))`. Pure: no IO, no clock. The controller never keeps state
 * the timeline cannot rebuild, which is what makes `kill -9` at any point recoverable.
 */
import type {
  DroppedFinding,
  EventPayloads,
  GatePhase,
  GateResult,
  IterationOutcome,
  LoopEvent,
  MakerStatus,
  RecordedTamperFlag,
  ReviewFinding,
  ReviewStatus,
  SteeringChange,
  SteerRequest,
  StopReason,
  Verdict,
  VerifierStatus,
} from "../core/events.ts";
import type { Spec } from "../core/spec.ts";
import { applyCiEvent, type CiState } from "./ci-state.ts";
import { applyMetricEvent, type MetricState } from "./strategies/metric-state.ts";
import { applyTaskEvent, type TasksState } from "./strategies/task-state.ts";

export interface MakerRecord {
  status: MakerStatus;
  account: string;
  exitCode?: number | null;
  error?: string;
  durationMs: number;
  costUsd?: number;
}

export interface VerifierRecord {
  status: VerifierStatus;
  verdict?: Verdict;
  error?: string;
  wroteFiles: string[];
}

/** A gate run that started and has not ended (nor been closed as interrupted). */
export interface RunningGate {
  gateId: string;
  phase: GatePhase;
}

/** One review round of an iteration: the patch `fromSha`..`sha` and what the reviewer made of it. */
export interface ReviewRound {
  round: number;
  sha: string;
  fromSha: string;
  files: string[];
  patchPath: string;
  running: boolean;
  /** Malformed answers so far (each got a corrective retry). */
  rejections: number;
  status?: ReviewStatus;
  verdict?: "ok" | "changes_requested";
  findings: ReviewFinding[];
  dropped: DroppedFinding[];
  error?: string;
}

/** A lesson a loop learned: one imperative line from the verifier or the replanner, for later briefs and the report. */
export interface Lesson {
  iteration: number;
  source: "verifier" | "replanner";
  text: string;
}

export interface IterationState {
  number: number;
  startSha: string;
  brief: string;
  /** The timeline position (seq) of its `iteration_started`: its events come after it. */
  startedSeq?: number;
  makerAttempts: number;
  makerRunning: boolean;
  maker?: MakerRecord;
  commit?: { sha: string; committed: boolean; files: string[] };
  screen?: {
    changedFiles: string[];
    scopeViolations: { file: string; rule: string }[];
    protectedFiles: string[];
    diffHash: string;
    diffPath: string;
  };
  /** Finished gate results per phase (grade, recheck, confirm, confirm-2, ...), keyed by gate id. */
  gates: Partial<Record<GatePhase, Record<string, GateResult>>>;
  gatesRunning: RunningGate[];
  /** Tamper flags raised on this iteration's change, numbered T1, T2, ... */
  tamperFlags: RecordedTamperFlag[];
  verifierRunning: boolean;
  verifier?: VerifierRecord;
  /** strategy tasks: the id of the task this iteration works on. */
  task?: string;
  /** Review rounds (`review:` in the spec), in order. */
  reviews: ReviewRound[];
  /** Set while the maker's turn answers a review round: that round's number. */
  reworkRound?: number;
  ended?: {
    outcome: IterationOutcome;
    failingGates: string[];
    fingerprint?: string;
    repeat: boolean;
    summary: string;
  };
}

export interface ReplanRecord {
  afterIteration: number;
  status: "completed" | "failed" | "interrupted";
  approach?: string;
  hypotheses?: string[];
  lesson?: string;
}

/** A `/loopwright` review request on the loop's pull request, and where its round stands. */
export interface CommentRound {
  id: string;
  pullRequest: number;
  author: string;
  kind: "conversation" | "diff";
  url?: string;
  body: string;
  path?: string;
  line?: number;
  diffHunk?: string;
  code?: string;
  thread?: string;
  /** The round's iteration, once it started. */
  iteration?: number;
  /** The verified commit the round started from (its pull request's head then). */
  fromSha?: string;
  answered?: EventPayloads["review_comment_answered"]["outcome"];
}

/** Comments on the loop's pull request: the ids seen (each handled once), the review requests, in order. */
export interface ReviewComments {
  seen: string[];
  rounds: CommentRound[];
  /** The last pull request the loop opened or updated, and the verified commit it shows. */
  pullRequest?: { number: number; url?: string; sha: string; forge?: "github" | "gitlab" | "gitea" };
  /** A request was answered since the loop last stopped: it stops again (verified) when none is open. */
  stopDue: boolean;
}

/** `parked`: the daily cost cap is spent; the loop waits until UTC midnight, then goes on by itself. */
export type LoopStatus = "created" | "running" | "paused" | "parked" | "stopped";

export interface LoopState {
  spec: Spec;
  status: LoopStatus;
  stopReason?: StopReason;
  stopMessage?: string;
  baseSha?: string;
  /** The branch the loop started from, recorded when it was created (the default pull request base). */
  startBranch?: string;
  prepared: boolean;
  /** The gates' results on the base commit, recorded before the first iteration. */
  baseline: Record<string, GateResult>;
  baselineRunning: string[];
  /**
   * Every run of the gates on the base commit (iteration 0), by phase: the baseline, and the extra runs
   * and rechecks a strategy asks for there (a streak runs the suite on the base commit until it fails).
   */
  baseRuns: { gates: Partial<Record<GatePhase, Record<string, GateResult>>>; running: RunningGate[] };
  iterations: IterationState[];
  pendingSteers: SteerRequest[];
  /** Steering applied since the last iteration started; the next brief quotes it. */
  unannouncedSteering: SteeringChange[];
  steeringHistory: { beforeIteration: number; changes: SteeringChange[] }[];
  pauseRequested: boolean;
  cancelRequested: boolean;
  /** Fingerprints of failed iterations since the last change of goal or gates. */
  fingerprintsSinceSteer: string[];
  repeatsSinceSteer: number;
  consecutiveInfraErrors: number;
  replans: ReplanRecord[];
  replanRunning: boolean;
  /** Lessons the loop learned (verifier rejections, replans), in timeline order. */
  lessons: Lesson[];
  finished?: { pushed: boolean; sha: string; error?: string; unchanged?: boolean; remote?: string };
  /** The pull request step of this run's finish, once recorded. */
  pullRequest?: EventPayloads["pull_request_recorded"];
  /** `/loopwright` review comments on the pull request (comment-rounds.ts). */
  reviewComments: ReviewComments;
  costUsd: number;
  /** Tokens the loop's turns used, where their engines reported them. */
  tokens: { input: number; output: number };
  /** Turns whose engine could not tell what they cost (a command, Copilot): the total is a lower bound. */
  uncostedTurns: number;
  /** Dollars spent per UTC day (`YYYY-MM-DD`), from the time each cost was recorded. */
  costByDay: Record<string, number>;
  /** While parked: when the loop may go on (ISO time, UTC midnight). */
  parkedUntil?: string;
  runIds: string[];
  /** Set by `loop_queued`, cleared by `run_started`: the loop waits for the service, in the order of `at`. */
  queued?: { command: "run" | "resume"; at: string };
  /** The last iteration that had ended when the user last resumed the loop (0: never resumed). */
  resumedAfterIteration: number;
  /** strategy tasks: the task list and where each task stands. */
  tasks?: TasksState;
  /** strategy metric: every measurement and every attempt's judgement. */
  metric?: MetricState;
  /** `finish.ci`: the rounds of watching the forge's checks, and the repairs they started. */
  ci?: CiState;
}

export function initialState(spec: Spec): LoopState {
  return {
    spec,
    status: "created",
    prepared: false,
    baseline: {},
    baselineRunning: [],
    baseRuns: { gates: {}, running: [] },
    iterations: [],
    pendingSteers: [],
    unannouncedSteering: [],
    steeringHistory: [],
    pauseRequested: false,
    cancelRequested: false,
    fingerprintsSinceSteer: [],
    repeatsSinceSteer: 0,
    consecutiveInfraErrors: 0,
    replans: [],
    replanRunning: false,
    lessons: [],
    costUsd: 0,
    uncostedTurns: 0,
    tokens: { input: 0, output: 0 },
    costByDay: {},
    runIds: [],
    resumedAfterIteration: 0,
    reviewComments: { seen: [], rounds: [], stopDue: false },
  };
}

export function replay(spec: Spec, events: LoopEvent[]): LoopState {
  return events.reduce(apply, initialState(spec));
}

/** The iteration in progress (started, not ended), if any. */
export function currentIteration(state: LoopState): IterationState | undefined {
  const last = state.iterations.at(-1);
  return last && !last.ended ? last : undefined;
}

/** Iterations that count against `maxIterations`: infrastructure errors do not. */
export function countedIterations(state: LoopState): number {
  return state.iterations.filter((iteration) => iteration.ended && iteration.ended.outcome !== "infra_error")
    .length;
}

/** Returns the state after one event. Never mutates its input. */
export function apply(state: LoopState, event: LoopEvent): LoopState {
  const counted = applyCiEvent(
    applyMetricEvent(applyTaskEvent(applyEvent(state, event), event), event),
    event,
  );
  const usage = "usage" in event.data ? event.data.usage : undefined;
  const next = usage
    ? {
        ...counted,
        tokens: {
          input: counted.tokens.input + usage.inputTokens,
          output: counted.tokens.output + usage.outputTokens,
        },
      }
    : counted;
  const cost = "costUsd" in event.data ? event.data.costUsd : undefined;
  const turnEnded =
    event.type === "maker_ended" ||
    event.type === "verifier_ended" ||
    event.type === "replan_ended" ||
    event.type === "review_ended";
  if (turnEnded && cost === undefined && event.data.status !== "interrupted") {
    return { ...next, uncostedTurns: next.uncostedTurns + 1 };
  }
  if (typeof cost !== "number" || cost <= 0) return next;
  const day = event.at.slice(0, 10);
  return {
    ...next,
    costUsd: next.costUsd + cost,
    costByDay: { ...next.costByDay, [day]: (next.costByDay[day] ?? 0) + cost },
  };
}

function applyEvent(state: LoopState, event: LoopEvent): LoopState {
  switch (event.type) {
    case "loop_created":
      return { ...state, baseSha: event.data.baseSha, startBranch: event.data.startBranch };
    case "loop_queued":
      return { ...state, queued: { command: event.data.command, at: event.at } };
    case "run_started":
      return {
        ...state,
        queued: undefined,
        runIds: [...state.runIds, event.data.runId],
        status: state.status === "created" ? "running" : state.status,
      };
    case "loop_prepared":
      return { ...state, prepared: true, baseSha: event.data.baseSha };
    case "steer_requested":
      return { ...state, pendingSteers: [...state.pendingSteers, event.data.request] };
    case "steering_applied": {
      const resetsMemory = event.data.changes.some(
        (change) => change.field === "goal" || change.field.startsWith("gates"),
      );
      return {
        ...state,
        spec: event.data.spec as Spec,
        pendingSteers: [],
        unannouncedSteering: [...state.unannouncedSteering, ...event.data.changes],
        steeringHistory: [
          ...state.steeringHistory,
          { beforeIteration: state.iterations.length + 1, changes: event.data.changes },
        ],
        fingerprintsSinceSteer: resetsMemory ? [] : state.fingerprintsSinceSteer,
        repeatsSinceSteer: resetsMemory ? 0 : state.repeatsSinceSteer,
      };
    }
    case "pause_requested":
      return { ...state, pauseRequested: true };
    case "cancel_requested":
      return { ...state, cancelRequested: true };
    case "loop_parked":
      return { ...state, status: "parked", parkedUntil: event.data.until };
    case "loop_unparked":
      return { ...state, status: "running", parkedUntil: undefined };
    case "loop_paused":
      return { ...state, status: "paused" };
    case "loop_resumed":
      return {
        ...state,
        status: "running",
        pauseRequested: false,
        cancelRequested: false,
        stopReason: undefined,
        stopMessage: undefined,
        finished: undefined,
        pullRequest: undefined,
        resumedAfterIteration: state.iterations.at(-1)?.number ?? 0,
      };
    case "iteration_started":
      return {
        ...startCommentRound(state, event.data.iteration),
        unannouncedSteering: [],
        iterations: [
          ...state.iterations,
          {
            number: event.data.iteration,
            startSha: event.data.startSha,
            brief: event.data.brief,
            startedSeq: event.seq,
            makerAttempts: 0,
            makerRunning: false,
            gates: {},
            tamperFlags: [],
            gatesRunning: [],
            verifierRunning: false,
            reviews: [],
          },
        ],
      };
    case "maker_started":
      return updateIteration(state, event.data.iteration, (iteration) => ({
        ...iteration,
        makerAttempts: event.data.attempt,
        makerRunning: true,
        maker: undefined,
        // A turn answering a review round makes a new commit on top of the reviewed one.
        ...(event.data.reviewRound !== undefined
          ? { reworkRound: event.data.reviewRound, commit: undefined }
          : {}),
      }));
    case "maker_ended": {
      const { iteration: _number, ...record } = event.data;
      return {
        ...updateIteration(state, event.data.iteration, (iteration) => ({
          ...iteration,
          makerRunning: false,
          maker: record,
        })),
      };
    }
    case "commit_created":
      return updateIteration(state, event.data.iteration, (iteration) => ({
        ...iteration,
        commit: { sha: event.data.sha, committed: event.data.committed, files: event.data.files },
      }));
    case "change_screened": {
      const { iteration: _number, sha: _sha, ...screen } = event.data;
      return updateIteration(state, event.data.iteration, (iteration) => ({ ...iteration, screen }));
    }
    case "gate_started":
      if (event.data.phase === "baseline") {
        return { ...state, baselineRunning: [...state.baselineRunning, event.data.gateId] };
      }
      if (event.data.iteration === 0) {
        const running = { gateId: event.data.gateId, phase: event.data.phase };
        return { ...state, baseRuns: { ...state.baseRuns, running: [...state.baseRuns.running, running] } };
      }
      return updateIteration(state, event.data.iteration, (iteration) => ({
        ...iteration,
        gatesRunning: [...iteration.gatesRunning, { gateId: event.data.gateId, phase: event.data.phase }],
      }));
    case "gate_ended": {
      const result = event.data.result;
      if (event.data.iteration === 0 || result.phase === "baseline") {
        const base = state.baseRuns;
        const baseRuns = {
          gates: {
            ...base.gates,
            [result.phase]: { ...(base.gates[result.phase] ?? {}), [result.id]: result },
          },
          running: base.running.filter((run) => !(run.gateId === result.id && run.phase === result.phase)),
        };
        if (result.phase !== "baseline") return { ...state, baseRuns };
        return {
          ...state,
          baseline: { ...state.baseline, [result.id]: result },
          baselineRunning: state.baselineRunning.filter((id) => id !== result.id),
          baseRuns,
        };
      }
      return updateIteration(state, event.data.iteration, (iteration) => ({
        ...iteration,
        gatesRunning: iteration.gatesRunning.filter(
          (running) => !(running.gateId === result.id && running.phase === result.phase),
        ),
        gates: {
          ...iteration.gates,
          [result.phase]: { ...(iteration.gates[result.phase] ?? {}), [result.id]: result },
        },
      }));
    }
    case "gate_interrupted":
      if (event.data.phase === "baseline") {
        return { ...state, baselineRunning: state.baselineRunning.filter((id) => id !== event.data.gateId) };
      }
      if (event.data.iteration === 0) {
        const { gateId, phase } = event.data;
        const running = state.baseRuns.running.filter(
          (run) => !(run.gateId === gateId && run.phase === phase),
        );
        return { ...state, baseRuns: { ...state.baseRuns, running } };
      }
      return updateIteration(state, event.data.iteration, (iteration) => ({
        ...iteration,
        gatesRunning: iteration.gatesRunning.filter(
          (running) => !(running.gateId === event.data.gateId && running.phase === event.data.phase),
        ),
      }));
    case "tamper_flagged":
      return updateIteration(state, event.data.iteration, (iteration) => ({
        ...iteration,
        tamperFlags: [
          ...iteration.tamperFlags.filter((flag) => flag.id !== event.data.flag.id),
          event.data.flag,
        ],
      }));
    case "verifier_started":
      return updateIteration(state, event.data.iteration, (iteration) => ({
        ...iteration,
        verifierRunning: true,
        verifier: undefined,
      }));
    case "verifier_ended": {
      const { status, verdict, error, wroteFiles } = event.data;
      const next = updateIteration(state, event.data.iteration, (iteration) => ({
        ...iteration,
        verifierRunning: false,
        verifier: { status, verdict, error, wroteFiles },
      }));
      const lesson = verdict && rejects(verdict) ? oneLine(verdict.lesson) : undefined;
      return lesson
        ? {
            ...next,
            lessons: [...next.lessons, { iteration: event.data.iteration, source: "verifier", text: lesson }],
          }
        : next;
    }
    case "review_started":
      return updateIteration(state, event.data.iteration, (iteration) => ({
        ...iteration,
        reviews: [
          ...iteration.reviews.filter((review) => review.round !== event.data.round),
          {
            round: event.data.round,
            sha: event.data.sha,
            fromSha: event.data.fromSha,
            files: event.data.files,
            patchPath: event.data.patchPath,
            running: true,
            rejections: 0,
            findings: [],
            dropped: [],
          },
        ],
      }));
    case "review_rejected":
      return updateReview(state, event.data.iteration, event.data.round, (review) => ({
        ...review,
        rejections: review.rejections + 1,
      }));
    case "review_ended":
      return updateReview(state, event.data.iteration, event.data.round, (review) => ({
        ...review,
        running: false,
        status: event.data.status,
        verdict: event.data.verdict,
        findings: event.data.findings,
        dropped: event.data.dropped,
        error: event.data.error,
      }));
    case "iteration_ended": {
      const { iteration: number, ...ended } = event.data;
      const next = updateIteration(state, number, (iteration) => ({ ...iteration, ended }));
      const fingerprint = ended.fingerprint;
      return {
        ...next,
        consecutiveInfraErrors: ended.outcome === "infra_error" ? state.consecutiveInfraErrors + 1 : 0,
        fingerprintsSinceSteer:
          fingerprint && !ended.repeat
            ? [...state.fingerprintsSinceSteer, fingerprint]
            : state.fingerprintsSinceSteer,
        repeatsSinceSteer: ended.repeat ? state.repeatsSinceSteer + 1 : state.repeatsSinceSteer,
      };
    }
    case "replan_started":
      return { ...state, replanRunning: true };
    case "replan_ended": {
      if (event.data.status === "interrupted") return { ...state, replanRunning: false };
      const record: ReplanRecord = {
        afterIteration: event.data.iteration,
        status: event.data.status,
        approach: event.data.approach,
        hypotheses: event.data.hypotheses,
        lesson: oneLine(event.data.lesson),
      };
      const lesson = record.lesson;
      return {
        ...state,
        replanRunning: false,
        replans: [...state.replans, record],
        lessons: lesson
          ? [...state.lessons, { iteration: event.data.iteration, source: "replanner", text: lesson }]
          : state.lessons,
      };
    }
    case "loop_finished":
      return {
        ...state,
        finished: {
          pushed: event.data.pushed,
          sha: event.data.sha,
          error: event.data.error,
          unchanged: event.data.unchanged,
          remote: event.data.remote,
        },
      };
    case "pull_request_recorded": {
      const { number, url, forge, sha, error } = event.data;
      const reviewComments =
        number !== undefined && !error
          ? { ...state.reviewComments, pullRequest: { number, url, forge, sha } }
          : state.reviewComments;
      return { ...state, pullRequest: event.data, reviewComments };
    }
    case "review_comment_received": {
      const { ignored, body, ...request } = event.data;
      // Each comment counts once, however many checks recorded it.
      if (state.reviewComments.seen.includes(event.data.id)) return state;
      const seen = [...state.reviewComments.seen, event.data.id];
      if (ignored !== undefined) return { ...state, reviewComments: { ...state.reviewComments, seen } };
      // A review request reopens a stopped loop for its round.
      return {
        ...state,
        status: state.status === "stopped" ? "running" : state.status,
        stopReason: undefined,
        stopMessage: undefined,
        reviewComments: {
          ...state.reviewComments,
          seen,
          rounds: [...state.reviewComments.rounds, { ...request, body: body ?? "" }],
          stopDue: false,
        },
      };
    }
    case "review_comment_answered": {
      const rounds = state.reviewComments.rounds.map((round) =>
        round.id === event.data.id ? { ...round, answered: event.data.outcome } : round,
      );
      return { ...state, reviewComments: { ...state.reviewComments, rounds, stopDue: true } };
    }
    case "loop_stopped":
      // Stopping removes the worktrees, so a resumed loop prepares them again.
      return {
        ...state,
        reviewComments: { ...state.reviewComments, stopDue: false },
        prepared: false,
        status: "stopped",
        stopReason: event.data.reason,
        stopMessage: event.data.message,
      };
    case "ci_watch_started":
    case "ci_checks_recorded":
    case "ci_repair_started":
    case "metric_measured":
    case "attempt_judged":
    case "tasks_read":
    case "task_completed":
    case "task_blocked":
    case "verdict_rejected":
    case "resume_requested":
    case "engines_resolved":
    case "run_ended":
    case "processes_swept":
    case "setup_ran":
      return state;
  }
}

/**
 * An iteration that starts while a review request waits for its round is that round's: it starts from
 * the pull request's verified commit, and the finish and pull request steps run again after it.
 */
function startCommentRound(state: LoopState, iteration: number): LoopState {
  const rounds = state.reviewComments.rounds;
  const waiting = rounds.findIndex((round) => !round.answered && round.iteration === undefined);
  if (waiting < 0) return state;
  const fromSha = state.reviewComments.pullRequest?.sha;
  return {
    ...state,
    finished: undefined,
    pullRequest: undefined,
    reviewComments: {
      ...state.reviewComments,
      rounds: rounds.map((round, index) => (index === waiting ? { ...round, iteration, fromSha } : round)),
    },
  };
}

function updateIteration(
  state: LoopState,
  number: number,
  change: (iteration: IterationState) => IterationState,
): LoopState {
  return {
    ...state,
    iterations: state.iterations.map((iteration) =>
      iteration.number === number ? change(iteration) : iteration,
    ),
  };
}

function updateReview(
  state: LoopState,
  iterationNumber: number,
  round: number,
  change: (review: ReviewRound) => ReviewRound,
): LoopState {
  return updateIteration(state, iterationNumber, (iteration) => ({
    ...iteration,
    reviews: iteration.reviews.map((review) => (review.round === round ? change(review) : review)),
  }));
}

/** A verdict carries a lesson only when it rejects something: a failed gate or an illegitimate tamper flag. */
function rejects(verdict: Verdict): boolean {
  return (
    verdict.overall === "fail" ||
    verdict.gates.some((ruling) => !ruling.passed) ||
    (verdict.tamper ?? []).some((ruling) => !ruling.legitimate)
  );
}

/** The longest lesson kept, in characters. */
const lessonLimit = 300;

/** A lesson as one line: whitespace folded, capped; undefined when empty. */
function oneLine(text: string | undefined): string | undefined {
  const line = text?.replace(/\s+/g, " ").trim();
  if (!line) return undefined;
  return line.length > lessonLimit ? `${line.slice(0, lessonLimit - 1)}…` : line;
}

/** The finished results of one phase of an iteration, keyed by gate id (empty when none ran). */
export function phaseResults(iteration: IterationState, phase: GatePhase): Record<string, GateResult> {
  return iteration.gates[phase] ?? {};
}

/** Every finished gate result of an iteration, phase by phase in the order they ran. */
export function allGateResults(iteration: IterationState): GateResult[] {
  return Object.values(iteration.gates).flatMap((results) => Object.values(results ?? {}));
}
