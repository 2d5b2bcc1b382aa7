/**
 * The runner: the only part of the controller that does IO. It takes the loop's lock, recovers from a
 * dead predecessor, then repeats `decide → execute → append` until the loop stops or pauses.
 */
import { randomUUID } from "node:crypto";
import { hostname } from "node:os";
import type { Actor, LoopEvent } from "../core/events.ts";
import { createRedactor } from "../core/redact.ts";
import { LoopBusyError } from "../errors.ts";
import { useGitShells } from "../git/git-shells.ts";
import { homeLayout } from "../paths.ts";
import { currentLockOwner } from "../process/liveness.ts";
import { runIdVariable, sweepTaggedProcesses } from "../process/sweep.ts";
import type { LoopRecord, Store } from "../store/store.ts";
import { type Action, decide } from "./decide.ts";
import { unpublished } from "./exit-code.ts";
import type { RunContext } from "./run-context.ts";
import { currentIteration, type LoopState } from "./state.ts";
import { clearStaleIndexLocks } from "./steps/clear-stale-locks.ts";
import { executeAction } from "./steps/execute-action.ts";
import { removeLoopWorktrees, stopLoop } from "./steps/finish-and-stop.ts";
import { dropGateCheckoutAhead } from "./steps/loop-git.ts";
import { openTimeline } from "./timeline.ts";

export interface RunLoopOptions {
  store: Store;
  loop: LoopRecord;
  home: string;
  /** `resume` also restarts a paused or stopped loop. */
  command: "run" | "resume";
  /** Every event as it is folded in (the live printer, `--json`). */
  onEvent?: (event: LoopEvent, state: LoopState) => void;
  /** Aborted on Ctrl-C: recorded as a cancel request and handled like `loopwright cancel`. */
  interrupt?: AbortSignal;
  /** Files a cancel request right after recovery: `cancel` of a loop no live controller runs. */
  cancel?: boolean;
  /**
   * Aborted when the process shuts down (the service's SIGTERM): the run ends once the current step has
   * ended, recording no stop and no cancel (`run_ended` with exit `shutdown`); the next run goes on from there.
   */
  shutdown?: AbortSignal;
  /**
   * Ends the run when the loop parks (exit `parked`) instead of waiting for UTC midnight in this run: the
   * service starts it again once it may go on, and a parked loop holds no slot meanwhile.
   */
  leaveWhenParked?: boolean;
  /** Who drives this run: recorded as `by` on the cancel request that `cancel` or `interrupt` files. */
  actor?: Actor;
  /**
   * Recover what the dead runs left, then stop the loop with reason `error` and this message instead of
   * going on: the service's last word on a loop whose controllers keep dying.
   */
  stopAfterRecovery?: string;
}

/**
 * The controller's clock. `LOOPWRIGHT_TEST_CLOCK_SKEW_MS` shifts it, so a test can stand a parked loop a
 * second before UTC midnight and watch it go on by itself.
 */
const clock = () => Date.now() + Number(process.env.LOOPWRIGHT_TEST_CLOCK_SKEW_MS ?? 0);

/**
 * Test hook: `LOOPWRIGHT_TEST_HANG_STEP=<action kind>` makes that step never finish (and ignore
 * cancellation), to prove that cancel stops a loop whatever a step does.
 */
const hungStep = process.env.LOOPWRIGHT_TEST_HANG_STEP;

/** How long a step may go on after a cancel before it is abandoned and the loop stops anyway. */
const abandonGraceMs = 5000;

/** How often a running controller looks for cancel requests filed by other processes. */
const controlPollMs = 250;

/**
 * Runs the loop until it stops or pauses and returns its final state. Throws `LoopBusyError` when a live
 * controller already holds the loop.
 */
export async function runLoop(options: RunLoopOptions): Promise<LoopState> {
  const { store, loop } = options;
  const runId = randomUUID().slice(0, 13);
  const lock = await store.acquireLock(loop.id, currentLockOwner(runId));
  if (!lock.acquired) {
    throw new LoopBusyError(
      `loop ${loop.name} is already running (pid ${lock.holder.pid} on ${lock.holder.host})`,
    );
  }
  // A controller runs a dozen git commands per iteration: each is handed to a waiting shell rather than
  // started from this process (git-shells.ts). Started once the loop is this run's, before any step,
  // while this process is still small; `cancel` of an idle loop (a recovery and a stop) starts none.
  if (!options.cancel) useGitShells();
  const timeline = openTimeline(store, loop, options.onEvent);
  const cancel = new AbortController();
  const layout = homeLayout(options.home);
  const context: RunContext = {
    store,
    loop,
    layout,
    runId,
    state: timeline.state,
    append: timeline.append,
    cancelSignal: cancel.signal,
    redact: createRedactor(),
    now: clock,
    makerWorktree: layout.makerWorktree(loop.id),
    gateWorktree: layout.gateWorktree(loop.id),
  };
  const onInterrupt = () => {
    if (!timeline.state().cancelRequested)
      void timeline.append("cancel_requested", actorOf(options)).catch(() => {});
    cancel.abort();
  };
  options.interrupt?.addEventListener("abort", onInterrupt, { once: true });
  const watcher = setInterval(() => {
    void timeline
      .sync()
      .then(() => {
        if (timeline.state().cancelRequested) cancel.abort();
      })
      .catch(() => {});
  }, controlPollMs);
  try {
    await timeline.sync();
    await recover(context, options.command);
    if (options.cancel && !timeline.state().cancelRequested)
      await timeline.append("cancel_requested", actorOf(options));
    if (options.stopAfterRecovery !== undefined && timeline.state().status !== "stopped")
      await stopLoop(context, "error", options.stopAfterRecovery);
    for (;;) {
      if (options.shutdown?.aborted || options.stopAfterRecovery !== undefined) break;
      await timeline.sync();
      const action = decide(timeline.state(), clock());
      if (action.kind === "idle") break;
      if (action.kind === "wait" && options.leaveWhenParked) break;
      if ((await executeUnlessAbandoned(context, action)) === "abandoned") {
        await stopAbandoned(context, action);
        break;
      }
    }
    return timeline.state();
  } finally {
    // A gates' checkout begun by the last step (see `handGateCheckoutAhead`) ends before the run does.
    await dropGateCheckoutAhead(context);
    clearInterval(watcher);
    options.interrupt?.removeEventListener("abort", onInterrupt);
    const state = timeline.state();
    const shutDown = options.shutdown?.aborted && state.status !== "stopped" && state.status !== "paused";
    const exit = shutDown ? "shutdown" : (state.stopReason ?? state.status);
    await timeline.append("run_ended", { runId, exit }).catch(() => {});
    await store.releaseLock(loop.id, runId);
  }
}

/** `{by}` when the run knows who drives it, else nothing (older callers). */
function actorOf(options: RunLoopOptions): { by?: Actor } {
  return options.actor ? { by: options.actor } : {};
}

/**
 * Makes a dead predecessor's leftovers safe: kills its surviving processes, closes the steps it left
 * open (decide then re-runs them), and restarts a paused or stopped loop on `resume`.
 */
async function recover(context: RunContext, command: "run" | "resume"): Promise<void> {
  const previousRuns = new Set(context.state().runIds);
  const killed =
    previousRuns.size > 0
      ? await sweepTaggedProcesses(runIdVariable, (value) => previousRuns.has(value))
      : [];
  if (killed.length > 0) await context.append("processes_swept", { pids: killed, runIds: [...previousRuns] });
  // Nothing of the dead runs is alive now: a git lock one of them left in our worktrees is stale.
  if (previousRuns.size > 0) await clearStaleIndexLocks(context);
  await context.append("run_started", { runId: context.runId, pid: process.pid, host: hostname(), command });
  const state = context.state();
  const iteration = currentIteration(state);
  if (iteration?.makerRunning) {
    await context.append("maker_ended", {
      iteration: iteration.number,
      status: "interrupted",
      account: "",
      durationMs: 0,
      error: "the controller died during the maker's turn",
    });
  }
  for (const gateId of state.baselineRunning) {
    await context.append("gate_interrupted", { iteration: 0, gateId, phase: "baseline" });
  }
  for (const running of state.baseRuns.running) {
    await context.append("gate_interrupted", { iteration: 0, ...running });
  }
  for (const running of iteration?.gatesRunning ?? []) {
    await context.append("gate_interrupted", { iteration: iteration?.number ?? 0, ...running });
  }
  if (iteration?.verifierRunning) {
    await context.append("verifier_ended", {
      iteration: iteration.number,
      status: "interrupted",
      wroteFiles: [],
      durationMs: 0,
      error: "the controller died during the verifier's turn",
    });
  }
  for (const review of iteration?.reviews.filter((round) => round.running) ?? []) {
    await context.append("review_ended", {
      iteration: iteration?.number ?? 0,
      round: review.round,
      status: "interrupted",
      findings: [],
      dropped: [],
      durationMs: 0,
      error: "the controller died during the review round",
    });
  }
  if (state.replanRunning) {
    await context.append("replan_ended", {
      iteration: state.iterations.at(-1)?.number ?? 0,
      status: "interrupted",
    });
  }
  if (state.status === "stopped" && state.stopReason === "verified" && !unpublished(state)) {
    // Nothing to resume; only tidy up after a controller that died between stopping and cleaning up.
    // (A verified loop whose push or pull request failed is resumed: it finishes again.)
    await removeLoopWorktrees(context);
    return;
  }
  if (command === "resume" && (state.status === "paused" || state.status === "stopped")) {
    await context.append("loop_resumed", {});
  }
}

/**
 * Executes one action, but gives up waiting for it `abandonGraceMs` after a cancel: a step that ignores
 * the cancel signal (a blocked read, a stuck child) must not keep the loop from stopping. An abandoned
 * step is left to finish or fail on its own, unobserved; the process exits once the loop has stopped.
 */
async function executeUnlessAbandoned(context: RunContext, action: Action): Promise<"done" | "abandoned"> {
  const step = executeSafely(context, action).then(() => "done" as const);
  const grace = afterAbort(context.cancelSignal, abandonGraceMs);
  try {
    return await Promise.race([step, grace.elapsed.then(() => "abandoned" as const)]);
  } finally {
    grace.dispose();
    step.catch(() => {}); // Abandoned, it may still fail: that is no longer anyone's concern.
  }
}

/** Ends the iteration (if one is open) and stops the loop `user_cancelled`, naming the abandoned step. */
async function stopAbandoned(context: RunContext, action: Action): Promise<void> {
  const message = `cancelled by the user; ${action.kind} did not stop within ${abandonGraceMs / 1000} s and was abandoned`;
  const iteration = currentIteration(context.state());
  if (iteration) {
    await context.append("iteration_ended", {
      iteration: iteration.number,
      outcome: "cancelled",
      failingGates: [],
      repeat: false,
      summary: message,
    });
  }
  await stopLoop(context, "user_cancelled", message);
}

/** Resolves `ms` after `signal` aborts (never, if it does not); `dispose` frees the timer and listener. */
function afterAbort(signal: AbortSignal, ms: number): { elapsed: Promise<void>; dispose: () => void } {
  let timer: NodeJS.Timeout | undefined;
  let onAbort = () => {};
  const elapsed = new Promise<void>((resolve) => {
    onAbort = () => {
      timer = setTimeout(resolve, ms);
    };
    if (signal.aborted) onAbort();
    else signal.addEventListener("abort", onAbort, { once: true });
  });
  return {
    elapsed,
    dispose: () => {
      clearTimeout(timer);
      signal.removeEventListener("abort", onAbort);
    },
  };
}

/**
 * Executes one action. A failure of the environment (git, the file system) inside an iteration ends it
 * as an infrastructure error, which the circuit breaker counts; outside one, it stops the loop.
 */
async function executeSafely(context: RunContext, action: Action): Promise<void> {
  try {
    if (hungStep === action.kind) await new Promise(() => {});
    await executeAction(context, action);
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    if (process.env.LOOPWRIGHT_DEBUG && error instanceof Error) process.stderr.write(`${error.stack}\n`);
    const iteration = currentIteration(context.state());
    if (iteration) {
      await context.append("iteration_ended", {
        iteration: iteration.number,
        outcome: "infra_error",
        failingGates: [],
        repeat: false,
        summary: `${action.kind} failed: ${message.split("\n")[0]}`,
      });
    } else {
      await context.append("loop_stopped", {
        reason: "error",
        message: `${action.kind} failed: ${message.split("\n")[0]}`,
      });
    }
  }
}
