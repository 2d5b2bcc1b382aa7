/**
 * The supervisor: the part of `serve` that runs loops in the background. At every tick it fires due
 * schedules, then starts waiting loops within the caps, each in this process with `runLoop`:
 * first the loops it found interrupted at start (resumed as `resume` does), then parked loops whose
 * UTC midnight has come, then the queue in submission order. What is active comes from the store's live
 * lock holders, so loops run in the foreground by `loopwright run` count against the caps too.
 */
import { setTimeout as delay } from "node:timers/promises";
import { LoopBusyError } from "../errors.ts";
import { runLoop } from "../loop/runner.ts";
import type { LoopState } from "../loop/state.ts";
import type { Store } from "../store/store.ts";
import type { Caps } from "./caps.ts";
import { type Candidate, chooseStarts } from "./choose-starts.ts";
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
}

/** A loop this supervisor is running. */
export interface SupervisedRun {
  loopId: string;
  name: string;
  /** Set once the run has started (its `run_started` event). */
  runId?: string;
  command: "run" | "resume";
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
   * Starts nothing more and asks every running loop to end once its current step has ended (no stop is
   * recorded: the next start goes on from there); waits at most `graceMs`. Returns the runs still going.
   */
  shutdown(graceMs: number): Promise<SupervisedRun[]>;
}

/** A loop created this recently that has never run may be a foreground `run` about to take its lock. */
const youngLoopMs = 10_000;

/** How long a loop whose start failed waits before it is tried again. */
const retryAfterMs = 5_000;

export function createSupervisor(options: SupervisorOptions): Supervisor {
  const { store, home, caps } = options;
  const tickMs = options.tickMs ?? 150;
  const log = options.log ?? (() => {});
  const fireDueSchedules = options.fireDueSchedules ?? registeredSchedules;
  const now = options.now ?? (() => Date.now() + Number(process.env.LOOPWRIGHT_TEST_CLOCK_SKEW_MS ?? 0));
  const watch = createLoopWatch(store);
  const running = new Map<string, SupervisedRun>();
  const notBefore = new Map<string, number>();
  const shutdownController = new AbortController();
  /** Loops found interrupted at start, in the order they are resumed; undefined until the first tick. */
  let recovering: string[] | undefined;
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
    const views = await watch.refresh();
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
    } else if (waitingLoops(views, holders).length === 0) return;
    else await readHolders();
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
      if (entry) launch(entry.view, entry.command, entry.why);
    }
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

  type Waiting = { view: WatchedLoop; command: "run" | "resume"; why: string };

  /** Everything that waits to start, in the order it should: recovered, woken from parking, queued. */
  function waitingLoops(views: WatchedLoop[], holders: Map<string, boolean>): Waiting[] {
    const time = now();
    const free = views.filter(
      (view) => !holders.get(view.loop.id) && (notBefore.get(view.loop.id) ?? 0) <= time,
    );
    const recovered: Waiting[] = [];
    const stillInterrupted: string[] = [];
    const viewsById = new Map(views.map((view) => [view.loop.id, view]));
    for (const loopId of recovering ?? []) {
      const view = viewsById.get(loopId);
      if (!view || running.has(loopId)) continue; // removed, or started
      if (view.state.queued || (view.state.status !== "running" && view.state.status !== "created")) continue;
      stillInterrupted.push(loopId);
      if (free.includes(view)) recovered.push({ view, command: "resume", why: "interrupted, resumed" });
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
    ).map(({ view }) => ({ view, command: view.state.queued?.command ?? "run", why: "queued" }));
    return [...recovered, ...parked, ...queued];
  }

  function launch(view: WatchedLoop, command: "run" | "resume", why: string): void {
    const { loop } = view;
    const run: SupervisedRun = { loopId: loop.id, name: loop.name, command, done: Promise.resolve() };
    running.set(loop.id, run);
    log(`loop ${loop.name} (${loop.id}): starting (${why})`);
    run.done = runLoop({
      store,
      loop,
      home,
      command,
      shutdown: shutdownController.signal,
      leaveWhenParked: true,
      onEvent: (event) => {
        if (event.type === "run_started" && event.data.pid === process.pid) run.runId = event.data.runId;
      },
    })
      .then((state) =>
        log(`loop ${loop.name} (${loop.id}): ${describeEnd(state, shutdownController.signal)}`),
      )
      .catch((error: unknown) => {
        if (error instanceof LoopBusyError) return log(`loop ${loop.name} (${loop.id}): ${error.message}`);
        notBefore.set(loop.id, now() + retryAfterMs);
        log(
          `loop ${loop.name} (${loop.id}): failed to run: ${error instanceof Error ? error.message : String(error)}`,
        );
      })
      .finally(() => {
        running.delete(loop.id);
        if (!stopped) runTick();
      });
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
      shutdownController.abort();
      const grace = new AbortController();
      await Promise.race([
        Promise.allSettled([...running.values()].map((run) => run.done)),
        delay(graceMs, undefined, { signal: grace.signal }).catch(() => {}),
      ]);
      grace.abort();
      return [...running.values()];
    },
  };
}

/** How a run ended, for the service's log. */
function describeEnd(state: LoopState, shutdown: AbortSignal): string {
  if (state.status === "stopped") return `stopped: ${state.stopReason}`;
  if (state.status === "parked") return `parked until ${state.parkedUntil}`;
  if (state.status === "paused") return "paused";
  return shutdown.aborted ? "left at its step boundary for the shutdown" : state.status;
}
