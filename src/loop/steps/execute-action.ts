/** Dispatches one decided action to the step that performs it. */
import { setTimeout as sleep } from "node:timers/promises";
import { withoutZodLocales } from "../../core/zod-without-locales.ts";
import type { Action } from "../decide.ts";
import type { RunContext } from "../run-context.ts";
import { finishLoop, stopLoop } from "./finish-and-stop.ts";
import {
  dropGateCheckoutAhead,
  dropPreparedMakerCheckout,
  takeMakerListingAhead,
  takePreparedCheckouts,
  takePreparedMakerCheckout,
} from "./loop-git.ts";
import { runMakerTurn } from "./maker-turn.ts";
import { prepare } from "./prepare.ts";
import { runGatePhase } from "./run-gate-phase.ts";
import { startIteration } from "./start-iteration.ts";

/** A module loaded once, when first asked for; a failed load fails every ask (the step that needs it). */
function loadOnce<T>(load: () => Promise<T>): () => Promise<T> {
  let loading: Promise<T> | undefined;
  return () => {
    loading ??= load();
    return loading;
  };
}

/**
 * The steps that only come after a maker's turn, loaded on first use: the run reaches the maker's first
 * command without them, and a second into a maker's turn (its command runs by then; an agent's turn
 * takes minutes) they start loading in the background, so the steps after it do not wait either. A turn
 * that ends sooner loads them when they are first needed. Those that bring zod in (the verdict's and
 * answers' schemas) load it without its translated messages, as the spec's parser does: a run whose
 * spec came from the parser's bundle has not loaded zod by then.
 */
const afterMaker = {
  commit: loadOnce(() => import("./commit-and-screen.ts")),
  review: loadOnce(() => withoutZodLocales(() => import("./review-turn.ts"))),
  verifier: loadOnce(() => withoutZodLocales(() => import("./verifier-turn.ts"))),
  replan: loadOnce(() => withoutZodLocales(() => import("./replan-turn.ts"))),
  pullRequest: loadOnce(() => import("./open-pull-request.ts")),
  comment: loadOnce(() => import("./answer-comment.ts")),
  ci: loadOnce(() => import("./watch-ci.ts")),
};

const preloadDelayMs = 1000;

/** Starts loading the after-maker steps; a failure is not lost: the step that needs the module rethrows it. */
function preloadAfterMaker(): void {
  for (const load of Object.values(afterMaker)) load().catch(() => {});
}

/**
 * Runs one action. The steps a loop reaches only after its first maker turn (commit and screen, verifier,
 * review, replan, metric and task steps, pull request, comments, CI) are imported when first needed, so a
 * fresh controller (one process per loop, see service/controller-run.ts) reaches the maker without
 * loading the tamper screens, the verifier, the reviewer or the forge clients.
 */
export async function executeAction(context: RunContext, action: Action): Promise<void> {
  // What a `prepare` just before left untouched is this step's to use, and no later step's.
  const prepared = takePreparedCheckouts(context);
  // The maker's checkout as `prepare` made it is the first maker turn's, if no other step comes between
  // but the base commit's gates (run in the gates' checkout) and the iteration's start.
  const makerPrepared = action.kind === "run_maker" ? takePreparedMakerCheckout(context) : undefined;
  if (!keepsPreparedMakerCheckout(action)) dropPreparedMakerCheckout(context);
  // The gates' checkout the commit step began is the next gate step's; the screen in between runs beside
  // it. Any other step waits for it to end, and drops it.
  if (action.kind !== "screen" && action.kind !== "run_gates") await dropGateCheckoutAhead(context);
  // The maker checkout's listing `start_iteration` began is the maker turn's right after it, or nobody's.
  const makerListed = takeMakerListingAhead(context);
  if (action.kind !== "run_maker") await makerListed;
  switch (action.kind) {
    case "prepare":
      return prepare(context);
    case "apply_steering": {
      const state = context.state();
      // Its gate and budget schemas load zod.
      const { applySteering } = await withoutZodLocales(() => import("../steering.ts"));
      const { spec, changes } = applySteering(state.spec, state.pendingSteers);
      return context.append("steering_applied", { changes, spec });
    }
    case "start_iteration":
      return startIteration(context, action.iteration);
    case "run_maker":
      setTimeout(preloadAfterMaker, preloadDelayMs).unref();
      return runMakerTurn(context, action.resume, action.reviewRound, makerPrepared, makerListed);
    case "run_review":
      return (await afterMaker.review()).runReviewTurn(context, action.round);
    case "commit":
      return (await afterMaker.commit()).commitIteration(context);
    case "screen":
      return (await afterMaker.commit()).screenChange(context);
    case "run_gates":
      return runGatePhase(context, action.iteration, action.phase, action.gateIds, prepared);
    case "record_flags":
      for (const flag of action.flags)
        await context.append("tamper_flagged", { iteration: action.iteration, flag });
      return;
    case "run_verifier":
      return (await afterMaker.verifier()).runVerifierTurn(context);
    case "end_iteration": {
      const { kind: _kind, ...ended } = action;
      return context.append("iteration_ended", ended);
    }
    case "replan":
      return (await afterMaker.replan()).runReplanTurn(context, action.afterIteration);
    case "measure_metric":
      return (await import("./metric-steps.ts")).measureMetric(context, action.iteration, action.phase);
    case "judge_attempt":
      return (await import("./metric-steps.ts")).judgeAttempt(context, action.iteration, action.kept);
    case "read_tasks":
      return (await import("./task-steps.ts")).readTasks(context);
    case "complete_task":
      return (await import("./task-steps.ts")).completeTask(context, action.iteration, action.taskId);
    case "block_task": {
      const { kind: _kind, ...blocked } = action;
      return context.append("task_blocked", blocked);
    }
    case "finish":
      return finishLoop(context);
    case "open_pull_request":
      return (await afterMaker.pullRequest()).openPullRequest(context);
    case "answer_comment":
      return (await afterMaker.comment()).answerComment(context, action);
    case "watch_ci":
      return (await afterMaker.ci()).watchCi(context, action.sha, action.round);
    case "start_ci_repair":
      return (await afterMaker.ci()).startCiRepair(context, action.sha);
    case "pause":
      return context.append("loop_paused", {});
    case "park": {
      const capUsd = context.state().spec.budget.maxCostUsdPerDay;
      return context.append("loop_parked", {
        until: action.until,
        spentTodayUsd: action.spentTodayUsd,
        capUsd,
      });
    }
    case "unpark":
      return context.append("loop_unparked", {});
    case "wait":
      return waitUntil(Date.parse(action.until) - context.now(), context.cancelSignal);
    case "stop":
      return stopLoop(context, action.reason, action.message);
    case "idle":
      return;
  }
}

/**
 * The steps that run nothing in the maker's checkout between `prepare` and the maker's first turn: the
 * base commit's gates (every phase of iteration 0 runs in the gates' checkout) and the iteration's start.
 */
function keepsPreparedMakerCheckout(action: Action): boolean {
  return (
    action.kind === "prepare" ||
    action.kind === "start_iteration" ||
    (action.kind === "run_gates" && action.iteration === 0)
  );
}

/** Sleeps toward a deadline, at most a second at a time (the runner then decides again); a cancel wakes it. */
async function waitUntil(milliseconds: number, signal: AbortSignal): Promise<void> {
  if (signal.aborted) return;
  await sleep(Math.max(0, Math.min(milliseconds, 1000)), undefined, { signal }).catch(() => {});
}
