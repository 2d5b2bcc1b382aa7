/**
 * Live progress of a running loop, one line per step: iteration, phase, elapsed time, gates ✓/✗, cost.
 * `--json` prints each event as one JSON line instead. Both read the same event stream.
 */
import { formatDuration } from "../core/duration.ts";
import type { LoopEvent } from "../core/events.ts";
import { describeCiEvent } from "../loop/ci-wording.ts";
import { describeRed } from "../loop/gate-wording.ts";
import { describeReviewRound } from "../loop/review-wording.ts";
import { countedIterations, type LoopState } from "../loop/state.ts";
import { formatMetric } from "../loop/strategies/metric-state.ts";
import { describeClassedFlag, describeRuling, describeVerified } from "../loop/tamper-standing.ts";
import { describeUnappliedSteering } from "../loop/unapplied-steering.ts";
import { stripTerminalControls } from "./terminal-text.ts";

export type EventListener = (event: LoopEvent, state: LoopState) => void;

export function jsonPrinter(
  write: (line: string) => void = (line) => process.stdout.write(line),
): EventListener {
  return (event) => write(`${JSON.stringify(event)}\n`);
}

export function progressPrinter(
  write: (line: string) => void = (line) => process.stdout.write(line),
): EventListener {
  const started = Date.now();
  // What a maker says is printed: it must not drive the terminal (clipboard, title, forged lines).
  const say = (text: string) => write(`[${clock(Date.now() - started)}] ${stripTerminalControls(text)}\n`);
  return (event, state) => {
    const line = describe(event, state);
    if (line) say(line);
  };
}

function describe(event: LoopEvent, state: LoopState): string | undefined {
  switch (event.type) {
    case "loop_created":
      return `loop ${event.data.name}: branch ${event.data.branch} from ${event.data.baseSha.slice(0, 10)}`;
    case "processes_swept":
      return `killed ${event.data.pids.length} leftover process(es) of a dead controller`;
    case "setup_ran":
      return `setup \`${event.data.command}\` ${event.data.exitCode === 0 ? "✓" : `✗ exit ${event.data.exitCode}`} (${formatDuration(event.data.durationMs)})`;
    case "engines_resolved":
      return [
        `maker ${event.data.maker}; verifier ${event.data.verifier}${event.data.reviewer ? `; reviewer ${event.data.reviewer}` : ""}`,
        ...event.data.warnings.map((warning) => `warning: ${warning}`),
      ].join("\n           ");
    case "loop_prepared":
      return `worktrees ready: ${event.data.makerWorktree}`;
    case "steering_applied":
      return `steering applied: ${event.data.changes.map((change) => change.field).join(", ") || "no change"}`;
    case "iteration_started": {
      const task = state.iterations.find((iteration) => iteration.number === event.data.iteration)?.task;
      const title = task ? state.tasks?.tasks.find((candidate) => candidate.id === task)?.title : undefined;
      return `── ${describeIterationNumber(event.data.iteration, state)} ── brief ${kib(event.data.brief.length)}${title ? ` ── task ${task}: ${title}` : ""}`;
    }
    case "maker_started": {
      if (event.data.reviewRound) return `  maker working, answering review round ${event.data.reviewRound}…`;
      return `  maker working${event.data.attempt > 1 ? ` (attempt ${event.data.attempt}, after an interruption)` : ""}…`;
    }
    case "review_started":
      return `  reviewer reading the patch of ${event.data.sha.slice(0, 10)} (${event.data.files.length} file(s)), round ${event.data.round}…`;
    case "review_rejected":
      return `  review round ${event.data.round}: malformed answer, one corrective retry (${event.data.problems[0] ?? ""})`;
    case "review_ended": {
      const round = state.iterations
        .find((iteration) => iteration.number === event.data.iteration)
        ?.reviews.find((review) => review.round === event.data.round);
      // Continuation lines line up under the `[mm:ss] ` prefix of the first.
      return round ? describeReviewRound(round).join(`\n${" ".repeat(8)}`) : undefined;
    }
    case "maker_ended": {
      const account = event.data.account.trim().split("\n").at(-1)?.slice(0, 100);
      return `  maker ${event.data.status} in ${formatDuration(event.data.durationMs)}${account ? `: ${account}` : ""}${event.data.error ? ` (${event.data.error})` : ""}`;
    }
    case "commit_created":
      return event.data.committed
        ? `  committed ${event.data.sha.slice(0, 10)} (${event.data.files.length} file${event.data.files.length === 1 ? "" : "s"})`
        : `  nothing to commit; grading ${event.data.sha.slice(0, 10)}`;
    case "change_screened": {
      const violations = event.data.scopeViolations.map((violation) => violation.file);
      return violations.length > 0 ? `  ✗ out of scope: ${violations.join(", ")}` : undefined;
    }
    case "tamper_flagged":
      return `  ⚑ ${describeClassedFlag(state.spec, event.data.flag)}`;
    case "gate_ended": {
      const result = event.data.result;
      const mark = result.passed ? "✓" : "✗";
      const timeout = state.spec.gates.find((gate) => gate.id === result.id)?.timeout;
      const why = result.passed ? "" : ` ${describeRed(result, timeout)}`;
      const onBase = event.data.iteration === 0 && result.phase !== "baseline" ? ", base commit" : "";
      const phase =
        result.phase === "baseline"
          ? " (base commit)"
          : result.phase === "recheck"
            ? ` (recheck${result.rerunOnly ? ` of ${result.rerunOnly.length} failing` : ""}${onBase})`
            : result.phase.startsWith("confirm")
              ? ` (${state.spec.strategy.kind === "streak" ? `run ${confirmRound(result.phase) + 1}` : "re-run"}${onBase})`
              : "";
      return `  ${mark} ${result.id}${phase}${why} ${formatDuration(result.durationMs)}`;
    }
    case "verifier_started":
      return "  verifier reviewing…";
    case "verifier_ended": {
      if (event.data.status !== "ruled") return `  verifier ${event.data.status}: ${event.data.error ?? ""}`;
      const rulings = (event.data.verdict?.tamper ?? []).map(
        (ruling) => `\n             ${ruling.id} ${describeRuling(ruling)}`,
      );
      // With a disagreement, loopwright derived a rejection from the rulings (see deriveOverall).
      const approves = event.data.verdict?.overall === "pass" && !event.data.disagreement;
      const disagreement = event.data.disagreement ? ` (${event.data.disagreement})` : "";
      return `  verifier: ${approves ? "✓ approves" : "✗ rejects"}${disagreement}${rulings.join("")}`;
    }
    case "iteration_ended":
      return `  iteration ${event.data.iteration}: ${event.data.outcome}: ${event.data.summary}${event.data.repeat ? " [repeat]" : ""} · ${describeCost(state)}`;
    case "replan_ended":
      return event.data.status === "completed"
        ? `  replanned: ${event.data.approach?.slice(0, 120)}`
        : `  replan ${event.data.status}${event.data.error ? `: ${event.data.error}` : ""}`;
    case "pull_request_recorded":
      return event.data.error
        ? `pull request not opened: ${event.data.error}`
        : `pull request ${event.data.created ? "opened" : "updated"}: ${event.data.url}${(event.data.waits ?? []).map((wait) => `\n        ${wait}`).join("")}`;
    case "review_comment_received":
      return event.data.ignored
        ? `comment ${event.data.id} by ${event.data.author}: ignored (${event.data.ignored})`
        : `review request ${event.data.id} by ${event.data.author}${event.data.path ? ` on ${event.data.path}${event.data.line ? `:${event.data.line}` : ""}` : ""}: ${event.data.body?.split("\n")[0]?.slice(0, 100) ?? ""}`;
    case "review_comment_answered":
      return `review request ${event.data.id} answered: ${event.data.outcome}${event.data.replyUrl ? ` ${event.data.replyUrl}` : ""}${event.data.error ? ` (reply not posted: ${event.data.error})` : ""}`;
    case "loop_finished":
      if (event.data.unchanged)
        return `branch ${event.data.branch}: the tree is unchanged; nothing pushed, no pull request`;
      return `branch ${event.data.branch} at ${event.data.sha.slice(0, 10)}${event.data.pushed ? ` pushed to ${event.data.remote}` : ""}${event.data.error ? ` (push failed: ${event.data.error})` : ""}`;
    case "metric_measured": {
      const where =
        event.data.iteration === 0
          ? "base commit"
          : event.data.phase === "remeasure"
            ? "re-measured"
            : "attempt";
      return event.data.median === undefined
        ? `  ✗ metric (${where}): ${event.data.error ?? "no value"}`
        : `  metric (${where}): ${formatMetric(event.data.median)}, median of ${event.data.samples.map(formatMetric).join(", ")}`;
    }
    case "attempt_judged":
      return event.data.kept
        ? `  attempt ${event.data.iteration} kept: ${formatMetric(event.data.median ?? 0)} is the new best`
        : `  attempt ${event.data.iteration} discarded; branch back to ${event.data.keptSha.slice(0, 10)}${event.data.ref ? `, the attempt kept at ${event.data.ref}` : ""}`;
    case "tasks_read": {
      const open = event.data.tasks.filter((task) => !task.done).length;
      return `tasks: ${open} open of ${event.data.tasks.length} in ${event.data.file}`;
    }
    case "task_completed":
      return `  task ${event.data.taskId} done: ticked by loopwright in ${event.data.sha.slice(0, 10)}`;
    case "task_blocked":
      return `  task ${event.data.taskId} blocked: ${event.data.reason}`;
    case "loop_parked":
      return `parked until ${event.data.until.replace("T", " ").slice(0, 16)} UTC: $${event.data.spentTodayUsd.toFixed(2)} spent today of the $${event.data.capUsd} daily cap; waiting (Ctrl-C cancels)`;
    case "loop_unparked":
      return "a new UTC day: going on";
    case "loop_paused":
      return "paused: `loopwright resume` continues";
    case "cancel_requested":
      return "cancelling…";
    case "loop_stopped": {
      const unapplied = describeUnappliedSteering(state);
      return `stopped: ${event.data.reason === "verified" ? describeVerified(state) : event.data.reason}: ${event.data.message}${unapplied ? `\n        note: ${unapplied}` : ""}`;
    }
    default:
      return describeCiEvent(event);
  }
}

/**
 * `iteration 2/3`; once infrastructure errors (which do not count against the budget) have made the
 * numbers part ways, `iteration 3 (2 of 2 counted)`.
 */
export function describeIterationNumber(number: number, state: LoopState): string {
  const budget = state.spec.budget.maxIterations;
  const counted =
    countedIterations(state) + (state.iterations.some((it) => it.number === number && !it.ended) ? 1 : 0);
  if (counted === number) return `iteration ${number}${budget ? `/${budget}` : ""}`;
  return `iteration ${number} (${counted}${budget ? ` of ${budget}` : ""} counted)`;
}

function clock(milliseconds: number): string {
  const seconds = Math.floor(milliseconds / 1000);
  return `${String(Math.floor(seconds / 60)).padStart(2, "0")}:${String(seconds % 60).padStart(2, "0")}`;
}

function kib(characters: number): string {
  return characters < 1024 ? `${characters} B` : `${(characters / 1024).toFixed(1)} KiB`;
}

/** The loop's cost so far, saying so when some turns could not be priced (it is then a lower bound). */
export function describeCost(state: LoopState): string {
  const unknown = state.uncostedTurns > 0 ? ` + ${state.uncostedTurns} turn(s) of unknown cost` : "";
  const tokens = state.tokens.input + state.tokens.output;
  const tokenText = tokens > 0 ? `, ${state.tokens.input} in / ${state.tokens.output} out tokens` : "";
  return `total $${state.costUsd.toFixed(2)}${unknown}${tokenText}`;
}

/** 1 for `confirm`, 2 for `confirm-2`, ... */
function confirmRound(phase: string): number {
  return phase === "confirm" ? 1 : Number(phase.slice("confirm-".length));
}
