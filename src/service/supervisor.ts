/**
 * The supervisor: the part of `serve` that runs loops in the background. At every tick it fires due
 * schedules, then starts waiting loops within the caps, each in its own controller process (see
 * controller-run.ts, which runs `runLoop` as `run` or `resume` would): first the loops found
 * interrupted (at start, or whose controller died since), then parked loops whose UTC midnight has
 * come, then the queue in submission order. What is active comes from the store's live lock holders,
 * so loops run in the foreground by `loopwright run` count against the caps too.
 *
 * A controller that exits without saying how its run ended died (a crash, `kill -9`): its run is closed
 * on the timeline (`run_ended` naming the exit) and its loop resumed, at most `maxRestarts` times in a
 * row; after that the loop is stopped with reason `error` and a message that says so.
 */
import { setTimeout as delay } from "node:timers/promises";
import type { Store } from "../store/store.ts";
import type { Caps } from "./caps.ts";
import { type Candidate, chooseStarts } from "./choose-starts.ts";
import { type CommentPoll, createCommentPoll } from "./comment-poll.ts";
import { createControllerPool, defaultLoopsPerController, type LoopController } from "./controller-pool.ts";
import { controllerLogPath, describeExit, idleControllersLogPath } from "./controller-process.ts";
import { type RunSummary, startTurnTimeoutMs } from "./controller-protocol.ts";
import { createLoopWatch, type WatchedLoop } from "./loop-watch.ts";
import { queueOrder } from "./queue-order.ts";
import { describeFiring, type FireDueSchedules, registeredSchedules } from "./schedule-firing.ts";

export interface SupervisorOptions {
  store: Store;
  /** loopwright's home folder (worktrees and logs of the loops it runs). */
  home: string;
  caps: Caps;
  /** Time between ticks, in ms (default 150). `wake()` ticks at once. */
  tickMs?: number;
  /** Called at every tick with the current time (default: the schedules registered in the store). */
  fireDueSchedules?: FireDueSchedules;
  /** One line per thing the supervisor does (default: none). */
  log?: (line: string) => void;
  /** The clock, in ms since the epoch (default: `Date.now` shifted by `LOOPWRIGHT_TEST_CLOCK_SKEW_MS`, like the runner's). */
  now?: () => number;
  /** How many times in a row a loop whose controller died is resumed before it is stopped (default 3). */
  maxRestarts?: number;
  /** Free places for loops kept ready in controllers started ahead (default 0: started when needed). */
  idleControllers?: number;
  /**
   * How many loops one controller process runs in its life (default 4; 1: a process per loop). A loop whose
   * controller died runs alone in a process until one of its runs ends by itself.
   */
  loopsPerController?: number;
  /** Called at every tick: looks for `/loopwright` review comments in the background (comment-poll.ts). */
  pollComments?: CommentPoll;
}

/** A loop this supervisor is running. */
export interface SupervisedRun {
  loopId: string;
  name: string;
  /** Set once the run has started (its `run_started` event). */
  runId?: string;
  command: "run" | "resume";
  /** The controller process's pid (shared by the loops that process runs). */
  pid: number;
  /** Resolves once the controller has exited and the supervisor has dealt with its end. */
  done: Promise<void>;
}

export interface Supervisor {
  /** Looks for interrupted loops to recover, then ticks until `shutdown`. */
  start(): void;
  /** Ticks as soon as possible: call it after a submission made in this process. */
  wake(): void;
  /** The loops this process runs now. */
  runs(): SupervisedRun[];
  /**
   * Starts nothing more and sends SIGTERM to every controller, which ends its run once the current step
   * has ended (no stop is recorded: the next start goes on from there) or, after its own grace, kills the
   * step's processes and exits. Waits at most `graceMs`; returns the runs whose controllers still run.
   */
  shutdown(graceMs: number): Promise<SupervisedRun[]>;
  /** SIGKILL to every controller still running (after `shutdown`, or on a second signal). */
  kill(): void;
}

/** A loop created this recently that has never run may be a foreground `run` about to take its lock. */
const youngLoopMs = 10_000;

/** How long a loop whose start failed waits before it is tried again. */
const retryAfterMs = 5_000;

/** How long a loop whose controller died waits before it is resumed, times the deaths in a row. */
const restartDelayMs = 500;

/** How often the holders of loops run by other processes are read, to notice one that died. */
const foreignCheckMs = 1_000;

export function createSupervisor(options: SupervisorOptions): Supervisor {
  const { store, home, caps } = options;
  const tickMs = options.tickMs ?? 150;
  const log = options.log ?? (() => {});
  const fireDueSchedules = options.fireDueSchedules ?? registeredSchedules;
  const pollComments = options.pollComments ?? createCommentPoll({ store, log });
  const now = options.now ?? (() => Date.now() + Number(process.env.LOOPWRIGHT_TEST_CLOCK_SKEW_MS ?? 0));
  const maxRestarts = options.maxRestarts ?? 3;
  const watch = createLoopWatch(store);
  const pool = createControllerPool(home, {
    idle: options.idleControllers ?? 0,
    loopsPerController: options.loopsPerController ?? defaultLoopsPerController,
  });
  const running = new Map<string, SupervisedRun & { controller: LoopController }>();
  const notBefore = new Map<string, number>();
  /** Per loop: its controllers' deaths in a row (reset when a run ends by itself). */
  const deaths = new Map<string, number>();
  /** Per loop: when its controller last died (wall clock, ms). */
  const lastDeathAt = new Map<string, number>();
  /** Loops found interrupted (at start, or whose controller died), in the order they are resumed; undefined until the first tick. */
  let recovering: string[] | undefined;
  /** Why each loop in `recovering` is resumed, for the log (default "interrupted, resumed"). */
  const recoveryReasons = new Map<string, string>();
  /** Loops held at the first tick by controllers of other processes (a previous service's, a foreground run). */
  const foreign = new Set<string>();
  let foreignCheckedAt = 0;
  /** Resolves once the last loop launched has started its run (see `launch`). */
  let startsInOrder = Promise.resolve();
  /** The controller of the last loop launched, and a promise resolved once its order was sent. */
  let lastLaunch: { pid: number; ordered: Promise<void> } | undefined;
  let timer: NodeJS.Timeout | undefined;
  let ticking: Promise<void> | undefined;
  let again = false;
  let stopped = false;

  const schedule = (ms: number) => {
    if (stopped) return;
    clearTimeout(timer);
    timer = setTimeout(runTick, ms);
  };
  const runTick = () => {
    if (ticking) {
      again = true;
      return;
    }
    ticking = tick()
      .catch((error: unknown) =>
        log(`tick failed: ${error instanceof Error ? error.message : String(error)}`),
      )
      .finally(() => {
        ticking = undefined;
        schedule(again ? 0 : tickMs);
        again = false;
      });
  };

  async function tick(): Promise<void> {
    const fired = await fireDueSchedules(store, home, new Date(now())).catch((error: unknown) => {
      log(`schedules: ${error instanceof Error ? error.message : String(error)}`);
      return [];
    });
    for (const firing of fired) log(describeFiring(firing));
    // Holders first, views second: a controller records its last events before it lets go of its lock.
    const released = await releasedForeignLoops();
    const views = await watch.refresh();
    pollComments(now(), views);
    // Mine count as held without asking; the others' holders are read only when something waits.
    const holders = new Map<string, boolean>(views.map((view) => [view.loop.id, running.has(view.loop.id)]));
    const readHolders = async () => {
      for (const view of views)
        if (!running.has(view.loop.id))
          holders.set(view.loop.id, (await store.lockHolder(view.loop.id)) !== undefined);
    };
    if (recovering === undefined) {
      await readHolders();
      recovering = interruptedAtStart(views, holders);
      for (const view of views)
        if (holders.get(view.loop.id) && !running.has(view.loop.id) && isUnfinished(view))
          foreign.add(view.loop.id);
    } else {
      for (const view of views)
        if (released.includes(view.loop.id) && isUnfinished(view) && !recovering.includes(view.loop.id))
          recovering.push(view.loop.id);
      if (waitingLoops(views, holders).length === 0) return;
      await readHolders();
    }
    const waiting = waitingLoops(views, holders);
    if (waiting.length === 0) return;
    const active = views.filter((view) => holders.get(view.loop.id));
    const byId = new Map(waiting.map((entry) => [entry.view.loop.id, entry]));
    const chosen = chooseStarts(
      waiting.map(
        (entry) => ({ loopId: entry.view.loop.id, providers: entry.view.providers }) satisfies Candidate,
      ),
      active,
      caps,
    );
    for (const candidate of chosen) {
      const entry = byId.get(candidate.loopId);
      if (entry) launch(entry.view, entry.command, entry.why, entry.stopMessage);
    }
  }

  /**
   * The loops held at the service's start by other processes whose holder has gone since (the orphaned
   * controller of a service killed with -9 ends at its next step boundary, a foreground run was killed):
   * an unfinished one among them is interrupted. Reads those holders at most every `foreignCheckMs`.
   */
  async function releasedForeignLoops(): Promise<string[]> {
    if (foreign.size === 0 || now() - foreignCheckedAt < foreignCheckMs) return [];
    foreignCheckedAt = now();
    const released: string[] = [];
    for (const loopId of foreign)
      if ((await store.lockHolder(loopId)) === undefined) {
        foreign.delete(loopId);
        released.push(loopId);
      }
    return released;
  }

  /** Loops marked running (or created) that nobody runs and nobody queued: their controller died. */
  function interruptedAtStart(views: WatchedLoop[], holders: Map<string, boolean>): string[] {
    const interrupted = views.filter(
      (view) =>
        (view.state.status === "running" || view.state.status === "created") &&
        !view.state.queued &&
        !holders.get(view.loop.id) &&
        (view.runs > 0 || now() - Date.parse(view.loop.createdAt) > youngLoopMs),
    );
    return interrupted.map((view) => view.loop.id).reverse(); // listLoops is newest first
  }

  type Waiting = { view: WatchedLoop; command: "run" | "resume"; why: string; stopMessage?: string };

  /** Everything that waits to start, in the order it should: recovered, woken from parking, queued. */
  function waitingLoops(views: WatchedLoop[], holders: Map<string, boolean>): Waiting[] {
    const time = now();
    // Queued again since its controller last died (an owner's `resume`): a fresh start, deaths forgotten.
    for (const view of views) {
      const diedAt = lastDeathAt.get(view.loop.id);
      if (diedAt !== undefined && view.state.queued && Date.parse(view.state.queued.at) > diedAt) {
        lastDeathAt.delete(view.loop.id);
        deaths.delete(view.loop.id);
        notBefore.delete(view.loop.id);
      }
    }
    const free = views.filter(
      (view) => !holders.get(view.loop.id) && (notBefore.get(view.loop.id) ?? 0) <= time,
    );
    const recovered: Waiting[] = [];
    const stillInterrupted: string[] = [];
    const viewsById = new Map(views.map((view) => [view.loop.id, view]));
    for (const loopId of recovering ?? []) {
      const view = viewsById.get(loopId);
      if (!view || running.has(loopId)) continue; // removed, or started
      if (view.state.queued || !isUnfinished(view)) continue;
      stillInterrupted.push(loopId);
      if (free.includes(view)) recovered.push(recovery(view));
    }
    recovering = stillInterrupted;
    const parked: Waiting[] = free
      .filter(
        (view) =>
          view.state.status === "parked" &&
          !view.state.queued &&
          Date.parse(view.state.parkedUntil ?? "") <= time,
      )
      .map((view) => ({ view, command: "resume", why: "woken at UTC midnight" }));
    const queued: Waiting[] = queueOrder(
      free.flatMap((view) =>
        view.state.queued ? [{ view, loopId: view.loop.id, queuedAt: view.state.queued.at }] : [],
      ),
    ).map(({ view }) =>
      (deaths.get(view.loop.id) ?? 0) > maxRestarts
        ? recovery(view) // its controllers died before they could even start its run
        : { view, command: view.state.queued?.command ?? "run", why: "queued" },
    );
    return [...recovered, ...parked, ...queued];
  }

  /**
   * Where a death is told: the loop's own log, and the controllers' log, where a controller shared by
   * several loops writes what it says itself (a crash report, an out-of-memory abort).
   */
  function logsOf(loopId: string): string {
    return `${controllerLogPath(home, loopId)} and ${idleControllersLogPath(home)}`;
  }

  /** How an interrupted loop is started again: resumed, or stopped once its controllers died too often. */
  function recovery(view: WatchedLoop): Waiting {
    const died = deaths.get(view.loop.id) ?? 0;
    const why = recoveryReasons.get(view.loop.id) ?? "interrupted, resumed";
    if (died <= maxRestarts) return { view, command: "resume", why };
    const stopMessage =
      `interrupted: its controller died ${died} times in a row (${why.replace(/; .*/, "")}); ` +
      `see ${logsOf(view.loop.id)}; \`loopwright resume ${view.loop.name}\` tries again`;
    return {
      view,
      command: "run",
      why: `its controller died ${died} times in a row, stopping it`,
      stopMessage,
    };
  }

  function launch(view: WatchedLoop, command: "run" | "resume", why: string, stopMessage?: string): void {
    const { loop } = view;
    // A loop whose controller died runs alone: it takes no other loop down with it again.
    const alone = (deaths.get(loop.id) ?? 0) > 0 || stopMessage !== undefined;
    const controller = pool.take(loop.id, { alone });
    const run: SupervisedRun & { controller: LoopController } = {
      loopId: loop.id,
      name: loop.name,
      command,
      pid: controller.pid,
      controller,
      done: Promise.resolve(),
    };
    running.set(loop.id, run);
    recoveryReasons.delete(loop.id);
    log(`loop ${loop.name} (${loop.id}): starting (${why}), controller pid ${controller.pid}`);
    void controller.started.then((runId) => {
      run.runId = runId;
    });
    // Controllers load in parallel, but each run starts (takes its lock, records `run_started`) only once
    // the one launched before it has: loops start in the order they were chosen, whichever loads first.
    // A controller starts the runs it is given in the order it got them: the next loop for the same
    // controller is ordered as soon as the one before it was, without waiting for its start.
    const previous = startsInOrder;
    const before = lastLaunch?.pid === controller.pid ? lastLaunch.ordered : previous;
    const { promise: ordered, resolve: setOrdered } = Promise.withResolvers<void>();
    lastLaunch = { pid: controller.pid, ordered };
    startsInOrder = (async () => {
      await Promise.race([before, delay(startTurnTimeoutMs)]);
      setOrdered();
      controller.order({
        type: "run",
        loopId: loop.id,
        command,
        logPath: controllerLogPath(home, loop.id),
        ...(stopMessage ? { stopMessage } : {}),
      });
      await Promise.race([controller.started, delay(startTurnTimeoutMs)]);
    })();
    run.done = controller.finished
      .then(async (finish) => {
        const name = `loop ${loop.name} (${loop.id})`;
        const closing = "closing" in finish ? finish.closing : undefined;
        if (closing?.type === "ended") {
          log(`${name}: ${describeEnd(closing.summary)}`);
          if (!closing.summary.shutdown) deaths.delete(loop.id);
        } else if (closing?.type === "busy") log(`${name}: ${closing.message}`);
        else if (closing?.type === "failed") {
          notBefore.set(loop.id, now() + retryAfterMs);
          log(`${name}: failed to run: ${closing.message}`);
        } else if ("exit" in finish) {
          if (!stopped) await controllerDied(view, run.runId, describeExit(finish.exit));
          else log(`${name}: its controller ${describeExit(finish.exit)} during the shutdown`);
        }
      })
      .catch((error: unknown) =>
        log(`loop ${loop.name} (${loop.id}): ${error instanceof Error ? error.message : String(error)}`),
      )
      .finally(() => {
        running.delete(loop.id);
        if (!stopped) runTick();
      });
  }

  /**
   * A controller exited without saying how its run ended: closes that run on the timeline and queues
   * the loop for recovery (resumed, or stopped after `maxRestarts` deaths in a row), after a short wait.
   */
  async function controllerDied(view: WatchedLoop, runId: string | undefined, exit: string): Promise<void> {
    const { loop } = view;
    const died = (deaths.get(loop.id) ?? 0) + 1;
    deaths.set(loop.id, died);
    lastDeathAt.set(loop.id, Date.now());
    log(`loop ${loop.name} (${loop.id}): its controller died (${exit}); see ${logsOf(loop.id)}`);
    const events = await store.readEvents(loop.id);
    const lastStart = events.findLast((event) => event.type === "run_started");
    const closed = events.some((event) => event.type === "run_ended" && event.data.runId === runId);
    if (runId && lastStart?.data.runId === runId && !closed)
      await store.appendEvent(loop.id, "run_ended", { runId, exit: `controller died: ${exit}` });
    if (died > maxRestarts + 1) {
      // Even the controller sent to stop it died: leave the loop alone until the owner acts (or a restart).
      notBefore.set(loop.id, Number.POSITIVE_INFINITY);
      log(`loop ${loop.name} (${loop.id}): left interrupted; \`loopwright resume ${loop.name}\` tries again`);
      return;
    }
    notBefore.set(loop.id, now() + restartDelayMs * died);
    recoveryReasons.set(
      loop.id,
      died <= maxRestarts ? `controller died (${exit}), resumed: restart ${died} of ${maxRestarts}` : exit,
    );
    if (!recovering?.includes(loop.id)) recovering?.push(loop.id);
  }

  return {
    start() {
      schedule(0);
    },
    wake() {
      if (stopped) return;
      clearTimeout(timer);
      runTick();
    },
    runs: () => [...running.values()],
    async shutdown(graceMs) {
      stopped = true;
      clearTimeout(timer);
      await ticking;
      const idleGone = pool.close("SIGTERM");
      for (const run of running.values()) run.controller.signal("SIGTERM");
      const grace = new AbortController();
      await Promise.race([
        Promise.allSettled([idleGone, ...[...running.values()].map((run) => run.done)]),
        delay(graceMs, undefined, { signal: grace.signal }).catch(() => {}),
      ]);
      grace.abort();
      return [...running.values()];
    },
    kill() {
      void pool.close("SIGKILL");
      for (const run of running.values()) run.controller.signal("SIGKILL");
    },
  };
}

/** Loops that are neither stopped, paused nor parked: a run of theirs is under way or was interrupted. */
function isUnfinished(view: WatchedLoop): boolean {
  return view.state.status === "running" || view.state.status === "created";
}

/** How a run ended, for the service's log. */
function describeEnd(summary: RunSummary): string {
  const memory = `controller peak RSS ${Math.round(summary.peakRssKib / 1024)} MiB`;
  if (summary.status === "stopped") return `stopped: ${summary.stopReason} (${memory})`;
  if (summary.status === "parked") return `parked until ${summary.parkedUntil} (${memory})`;
  if (summary.status === "paused") return `paused (${memory})`;
  return `${summary.shutdown ? "left at its step boundary for the shutdown" : summary.status} (${memory})`;
}
