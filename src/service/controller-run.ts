/**
 * One loop's controller, in its own process: it loads the runner, says `ready`, takes one `run` order
 * from the service, opens the store itself and runs `runLoop` exactly as the in-process service did,
 * reports how the run ended, and exits.
 *
 * Shutdown: SIGTERM (the service forwards its own), SIGINT, SIGHUP, or the service's death (its IPC
 * channel closes, `kill -9` included) abort the runLoop `shutdown` signal, so the run ends at its next
 * event boundary with nothing recorded but `run_ended`. A step that has not ended `shutdownGraceMs`
 * later is abandoned: the processes of the run are killed and the controller exits with
 * `leftMidStepExitCode`; the loop is recovered as interrupted by the next service. A controller never
 * outlives its service by more than the grace.
 */
import { mkdirSync, openSync, writeSync } from "node:fs";
import { dirname } from "node:path";
import { LoopBusyError } from "../errors.ts";
import { runLoop } from "../loop/runner.ts";
import { runIdVariable, sweepTaggedProcesses } from "../process/sweep.ts";
import { primeSandboxAvailability } from "../sandbox/sandbox-availability.ts";
import { openStore } from "../store/open-store.ts";
import {
  type ControllerMessage,
  isRunOrder,
  leftMidStepExitCode,
  type RunOrder,
  shutdownGraceMs,
} from "./controller-protocol.ts";

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
  const shutdown = new AbortController();
  let runId: string | undefined;
  const requestShutdown = (why: string) => {
    if (shutdown.signal.aborted) return;
    log(`${why}: ending the run at its next event boundary (at most ${shutdownGraceMs / 1000} s)`);
    shutdown.abort();
    setTimeout(() => void abandon(runId), shutdownGraceMs);
  };
  for (const signal of ["SIGTERM", "SIGINT", "SIGHUP"] as const)
    process.on(signal, () => requestShutdown(signal));
  process.on("disconnect", () => requestShutdown("the service is gone"));
  if (!process.connected) requestShutdown("the service is gone");

  const orderReceived = waitForOrder();
  // Everything that does not need the loop is done before saying ready: the run starts at once when told.
  const opening = openStore(home);
  await opening.catch(() => {}); // a store that does not open fails the run, below, once it is ordered
  await primeSandboxAvailability();
  send({ type: "ready" });
  const order = await Promise.race([orderReceived, aborted(shutdown.signal)]);
  if (!order) process.exit(0); // shut down before it was given a loop

  logTo(order.logPath);
  log(`loop ${order.loopId}: ${order.command}${order.stopMessage ? " to stop it" : ""}`);
  try {
    const store = await opening;
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
          runId = event.data.runId;
          send({ type: "started", runId });
        }
      },
    });
    await store.close();
    const shutDown = shutdown.signal.aborted && state.status !== "stopped" && state.status !== "paused";
    const summary = {
      status: state.status,
      stopReason: state.stopReason,
      parkedUntil: state.parkedUntil,
      shutdown: shutDown,
      peakRssKib: peakRssKib(),
      cpuMs: cpuMs(),
    };
    log(`run ended: ${JSON.stringify(summary)}`);
    await sendAndExit({ type: "ended", summary }, 0);
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    log(`run failed: ${error instanceof Error ? (error.stack ?? message) : message}`);
    await sendAndExit(
      error instanceof LoopBusyError ? { type: "busy", message } : { type: "failed", message },
      1,
    );
  }
}

/** The step did not reach its boundary in time: kill what the run started and leave. */
async function abandon(runId: string | undefined): Promise<void> {
  log(`the step did not end within ${shutdownGraceMs / 1000} s: killing its processes and leaving`);
  if (runId) await sweepTaggedProcesses(runIdVariable, (value) => value === runId);
  process.exit(leftMidStepExitCode);
}

function waitForOrder(): Promise<RunOrder> {
  return new Promise((resolve) => {
    const onMessage = (message: unknown) => {
      if (!isRunOrder(message))
        return log(`ignored a message that is not a run order: ${JSON.stringify(message)}`);
      process.off("message", onMessage);
      resolve(message);
    };
    process.on("message", onMessage);
  });
}

function aborted(signal: AbortSignal): Promise<undefined> {
  return new Promise((resolve) => signal.addEventListener("abort", () => resolve(undefined), { once: true }));
}

function send(message: ControllerMessage): void {
  if (process.connected) process.send?.(message, undefined, undefined, () => {}); // a gone service is not an error
}

/** Sends the closing message, then exits once it is written (or at once when the service is gone). */
async function sendAndExit(message: ControllerMessage, code: number): Promise<never> {
  if (process.connected)
    await new Promise<void>((resolve) => process.send?.(message, undefined, undefined, () => resolve()));
  process.exit(code);
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

let logFile: number | undefined;

/**
 * From now on this controller's lines, and the report of an error that would kill it, go to `path`
 * (the loop's log) instead of its stderr (where an idle controller's output goes until it has a loop).
 */
function logTo(path: string): void {
  try {
    mkdirSync(dirname(path), { recursive: true, mode: 0o700 });
    logFile = openSync(path, "a", 0o600);
  } catch (error) {
    log(`cannot write to ${path}: ${error instanceof Error ? error.message : String(error)}`);
    return;
  }
  process.on("uncaughtException", (error) => {
    log(`uncaught: ${error.stack ?? error.message}`);
    process.exit(1);
  });
}

/** One line to this controller's log. */
function log(line: string): void {
  const text = `${new Date().toISOString()} [${process.pid}] ${line}\n`;
  if (logFile === undefined) process.stderr.write(text);
  else writeSync(logFile, text);
}
