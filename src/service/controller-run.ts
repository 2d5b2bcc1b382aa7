/**
 * A controller process: it loads the runner, says `ready`, and runs each loop the service orders with
 * `runLoop`, exactly as `run` or `resume` would, several at once (each with its own store connection,
 * shutdown and log), reporting how each run ended. It exits once it has been told no more orders will
 * come (`last`, `leave`) and its runs have ended, or when it is shut down.
 *
 * Shutdown: SIGTERM (the service forwards its own), SIGINT, SIGHUP, or the service's death (its IPC
 * channel closes, `kill -9` included) abort every run's `shutdown` signal, so each run ends at its next
 * event boundary with nothing recorded but `run_ended`. A step that has not ended `shutdownGraceMs`
 * later is abandoned: the processes of every run still going are killed and the controller exits with
 * `leftMidStepExitCode`; those loops are recovered as interrupted by the next service. A controller
 * never outlives its service by more than the grace.
 *
 * A controller's death (a crash, an uncaught error, `kill -9`) is the death of every run it holds: the
 * service recovers each of those loops, and runs a loop whose controller died in a controller of its
 * own until one of its runs ends by itself (see controller-pool.ts).
 */

import { dirname } from "node:path";
import { setTimeout as delay } from "node:timers/promises";
import { LoopBusyError } from "../errors.ts";
import { closeSync, mkdirSync, openSync, writeSync } from "../files/node-fs.ts";
import { runLoop } from "../loop/runner.ts";
import { runIdVariable, sweepTaggedProcesses } from "../process/sweep.ts";
import { primeSandboxAvailability } from "../sandbox/sandbox-availability.ts";
import { openStore } from "../store/open-store.ts";
import type { Store } from "../store/store.ts";
import {
  type ClosingMessage,
  type ControllerMessage,
  isLeaveOrder,
  isRunOrder,
  leftMidStepExitCode,
  type RunOrder,
  shutdownGraceMs,
  startTurnTimeoutMs,
} from "./controller-protocol.ts";

/** A loop this controller runs now. */
interface HeldRun {
  loopId: string;
  /** Set once its run has started. */
  runId?: string;
  /** One line to the loop's log. */
  log: (line: string) => void;
}

/** The home folder comes from the environment the service passes (`LOOPWRIGHT_HOME` is always set). */
export async function runController(): Promise<void> {
  if (!process.send) {
    process.stderr.write("controller-main runs loops for `loopwright serve`; it is not a command\n");
    process.exit(2);
  }
  const home = process.env.LOOPWRIGHT_HOME;
  if (!home) {
    process.stderr.write("controller-main: LOOPWRIGHT_HOME is not set\n");
    process.exit(2);
  }
  const held = new Set<HeldRun>();
  /** Every line about the whole process: to each loop it holds, or its own output when it holds none. */
  const logAll = (line: string) => {
    if (held.size === 0) writeLine(undefined, line);
    for (const run of held) run.log(line);
  };
  const shutdown = new AbortController();
  /** Orders taken so far. */
  let given = 0;
  /** Resolves once the run of the latest order has started, or will not. */
  let previousStart = Promise.resolve();
  let lastOrdered = false;
  let failures = 0;
  /** Exits once nothing is left to do: no run held, and no order to wait for. */
  const leaveIfDone = () => {
    if (held.size === 0 && (lastOrdered || shutdown.signal.aborted)) process.exit(failures > 0 ? 1 : 0);
  };
  const requestShutdown = (why: string) => {
    if (shutdown.signal.aborted) return;
    logAll(`${why}: ending the run at its next event boundary (at most ${shutdownGraceMs / 1000} s)`);
    shutdown.abort();
    setTimeout(() => void abandon(held, logAll), shutdownGraceMs);
    leaveIfDone();
  };
  for (const signal of ["SIGTERM", "SIGINT", "SIGHUP"] as const)
    process.on(signal, () => requestShutdown(signal));
  process.on("disconnect", () => requestShutdown("the service is gone"));
  process.on("uncaughtException", (error) => {
    logAll(`uncaught: ${error.stack ?? error.message}`);
    process.exit(1);
  });
  if (!process.connected) requestShutdown("the service is gone");

  // Everything that does not need the loop is done before saying ready: a run starts at once when told.
  // Each run gets a store connection of its own, opened ahead for the next order.
  let nextStore = openSpareStore(home);
  await nextStore.catch(() => {}); // a store that does not open fails the run, below, once it is ordered
  await primeSandboxAvailability();

  const run = async (order: RunOrder) => {
    const log = loopLog(order.logPath);
    const entry: HeldRun = { loopId: order.loopId, log };
    held.add(entry);
    const opening = nextStore;
    nextStore = order.last ? Promise.reject(new Error("no more orders")) : openSpareStore(home);
    nextStore.catch(() => {});
    log(`loop ${order.loopId}: ${order.command}${order.stopMessage ? " to stop it" : ""}`);
    // Runs start in the order given: this one once the one ordered before it has started (or will not).
    const turn = previousStart;
    const { promise: startedOrNot, resolve: endTurn } = Promise.withResolvers<void>();
    previousStart = startedOrNot;
    let closing: ClosingMessage;
    let store: Store | undefined;
    try {
      store = await opening;
      await Promise.race([turn, delay(startTurnTimeoutMs)]);
      const loop = await store.findLoop(order.loopId);
      if (!loop) throw new Error(`no loop ${order.loopId} in the store`);
      const state = await runLoop({
        store,
        loop,
        home,
        command: order.command,
        shutdown: shutdown.signal,
        leaveWhenParked: true,
        stopAfterRecovery: order.stopMessage,
        onEvent: (event) => {
          if (event.type === "run_started" && event.data.pid === process.pid) {
            entry.runId = event.data.runId;
            send({ type: "started", loopId: order.loopId, runId: entry.runId });
            endTurn();
          }
        },
      });
      const shutDown = shutdown.signal.aborted && state.status !== "stopped" && state.status !== "paused";
      const summary = {
        status: state.status,
        stopReason: state.stopReason,
        parkedUntil: state.parkedUntil,
        shutdown: shutDown,
        peakRssKib: peakRssKib(),
        cpuMs: cpuMs(),
        loops: given,
      };
      log(`run ended: ${JSON.stringify(summary)}`);
      closing = { type: "ended", loopId: order.loopId, summary };
    } catch (error) {
      const message = error instanceof Error ? error.message : String(error);
      log(`run failed: ${error instanceof Error ? (error.stack ?? message) : message}`);
      closing =
        error instanceof LoopBusyError
          ? { type: "busy", loopId: order.loopId, message }
          : { type: "failed", loopId: order.loopId, message };
      if (!(error instanceof LoopBusyError)) failures += 1;
      // A lock this live process cannot release would keep the loop from every other controller until
      // this one exits: take no more orders, so that it does once its other runs have ended.
      if (entry.runId && !(await released(store, order.loopId, entry.runId))) lastOrdered = true;
    }
    endTurn();
    await store?.close();
    await sendClosing(closing);
    held.delete(entry);
    log.close();
    leaveIfDone();
  };

  process.on("message", (message: unknown) => {
    if (isLeaveOrder(message)) {
      lastOrdered = true;
      return leaveIfDone();
    }
    if (!isRunOrder(message))
      return logAll(`ignored a message that is not a run order: ${JSON.stringify(message)}`);
    if (lastOrdered || shutdown.signal.aborted) {
      const why = shutdown.signal.aborted ? "it is shutting down" : "it could not release a lock";
      return send({
        type: "failed",
        loopId: message.loopId,
        message: `this controller takes no more loops: ${why}`,
      });
    }
    given += 1;
    if (message.last) lastOrdered = true;
    void run(message);
  });
  send({ type: "ready" });
  leaveIfDone(); // shut down before it was given a loop
}

/** Opens a store connection; its failure is the business of the run that awaits it. */
function openSpareStore(home: string): Promise<Store> {
  const opening = openStore(home);
  opening.catch(() => {});
  return opening;
}

/** Releases the run's lock if it still holds it; false when it could not. */
async function released(store: Store | undefined, loopId: string, runId: string): Promise<boolean> {
  try {
    await store?.releaseLock(loopId, runId);
    return store !== undefined;
  } catch {
    return false;
  }
}

/** The step did not reach its boundary in time: kill what the runs started and leave. */
async function abandon(held: Set<HeldRun>, logAll: (line: string) => void): Promise<void> {
  logAll(`the step did not end within ${shutdownGraceMs / 1000} s: killing its processes and leaving`);
  const runIds = new Set([...held].flatMap((run) => (run.runId ? [run.runId] : [])));
  if (runIds.size > 0) await sweepTaggedProcesses(runIdVariable, (value) => runIds.has(value));
  process.exit(leftMidStepExitCode);
}

function send(message: ControllerMessage): void {
  if (process.connected) process.send?.(message, undefined, undefined, () => {}); // a gone service is not an error
}

/** Sends a loop's closing message; resolves once it is written (or at once when the service is gone). */
async function sendClosing(message: ClosingMessage): Promise<void> {
  if (process.connected)
    await new Promise<void>((resolve) => process.send?.(message, undefined, undefined, () => resolve()));
}

/** CPU time (user + system) this process has used, in ms. */
function cpuMs(): number {
  const { user, system } = process.cpuUsage();
  return Math.round((user + system) / 1000);
}

/** Peak resident memory of this process in KiB (`getrusage`'s maxrss, VmHWM on Linux). */
function peakRssKib(): number {
  return process.resourceUsage().maxRSS;
}

/**
 * One loop's log: its lines go to `path` (the loop's controller.log), or to this process's own output
 * (the service's controllers.log, or the loop's log for a controller started for it) when that cannot
 * be opened.
 */
function loopLog(path: string): ((line: string) => void) & { close(): void } {
  let file: number | undefined;
  try {
    mkdirSync(dirname(path), { recursive: true, mode: 0o700 });
    file = openSync(path, "a", 0o600);
  } catch (error) {
    writeLine(
      undefined,
      `cannot write to ${path}: ${error instanceof Error ? error.message : String(error)}`,
    );
  }
  return Object.assign((line: string) => writeLine(file, line), {
    close() {
      if (file !== undefined) closeSync(file);
      file = undefined;
    },
  });
}

/** One line to `file`, or to stderr. */
function writeLine(file: number | undefined, line: string): void {
  const text = `${new Date().toISOString()} [${process.pid}] ${line}\n`;
  if (file === undefined) process.stderr.write(text);
  else writeSync(file, text);
}
