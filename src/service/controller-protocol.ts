/**
 * What the service and a controller process say to each other over the IPC channel. A controller runs
 * the loops the service orders, several at once, each as `run` or `resume` would. It says `ready` once
 * its modules are loaded, then gets `run` orders, whose runs it starts in the order received (each once
 * the one before has started, or `startTurnTimeoutMs` later); for each loop it reports `started` when the run holds
 * the loop (`run_started` recorded) and one closing message (`ended`, `busy` or `failed`). After the
 * order marked `last`, or a `leave`, it takes no more and exits once all its runs have ended. A controller that exits
 * without a loop's closing message died: the service recovers that loop.
 */

/** The service's order: run one loop, as `loopwright run` or `resume` would. */
export interface RunOrder {
  type: "run";
  loopId: string;
  command: "run" | "resume";
  /** The loop's log file: the controller writes its lines about this loop there. */
  logPath: string;
  /**
   * Instead of going on: recover what the dead runs left (close their steps, kill their processes) and
   * stop the loop with reason `error` and this message. For a loop whose controllers keep dying.
   */
  stopMessage?: string;
  /** No order will follow: exit once every run has ended. */
  last?: boolean;
}

/** The service's word that no order will follow: exit once every run has ended (at once if none runs). */
export interface LeaveOrder {
  type: "leave";
}

/** How a run ended, for the service's log. */
export interface RunSummary {
  status: string;
  stopReason?: string;
  parkedUntil?: string;
  /** The run ended because the controller was asked to shut down (SIGTERM, or the service died). */
  shutdown: boolean;
  /** The controller process's peak resident memory (VmHWM) so far, in KiB: all the loops it ran. */
  peakRssKib: number;
  /** The controller process's CPU time (user + system) from its start to the run's end, in ms. */
  cpuMs: number;
  /** How many loops the controller process has been given so far, this one included. */
  loops: number;
}

export type ControllerMessage =
  | { type: "ready" }
  | { type: "started"; loopId: string; runId: string }
  | { type: "ended"; loopId: string; summary: RunSummary }
  /** Another live controller holds the loop (`LoopBusyError`). */
  | { type: "busy"; loopId: string; message: string }
  /** The run could not be started or failed with an error (opening the store, a damaged loop, ...). */
  | { type: "failed"; loopId: string; message: string };

/** A message that closes a loop's run: the controller says no more about that loop. */
export type ClosingMessage = Extract<ControllerMessage, { type: "ended" | "busy" | "failed" }>;

/** Exit code of a controller whose step did not reach its boundary within the shutdown grace. */
export const leftMidStepExitCode = 3;

/**
 * Runs start (take their lock, record `run_started`) in the order they were launched: the longest one
 * waits for the run launched before it to start.
 */
export const startTurnTimeoutMs = 5_000;

/** How long a step gets to reach its next event boundary after a shutdown request. */
export const shutdownGraceMs = 10_000;

export function isLeaveOrder(value: unknown): value is LeaveOrder {
  return typeof value === "object" && value !== null && (value as Partial<LeaveOrder>).type === "leave";
}

export function isRunOrder(value: unknown): value is RunOrder {
  const order = value as Partial<RunOrder> | null;
  return (
    typeof order === "object" &&
    order !== null &&
    order.type === "run" &&
    typeof order.loopId === "string" &&
    (order.command === "run" || order.command === "resume") &&
    typeof order.logPath === "string" &&
    (order.stopMessage === undefined || typeof order.stopMessage === "string") &&
    (order.last === undefined || typeof order.last === "boolean")
  );
}
