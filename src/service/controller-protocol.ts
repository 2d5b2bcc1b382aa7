/**
 * What the service and a loop's controller process say to each other over the IPC channel. The
 * controller says `ready` once its modules are loaded, gets one `run` order, reports `started` when its
 * run holds the loop (`run_started` recorded) and one closing message (`ended`, `busy` or `failed`)
 * before it exits. A controller that exits without a closing message died: the service recovers its loop.
 */

/** The service's order: run one loop, as `loopwright run` or `resume` would. */
export interface RunOrder {
  type: "run";
  loopId: string;
  command: "run" | "resume";
  /** The loop's log file: the controller writes its own lines there from now on. */
  logPath: string;
  /**
   * Instead of going on: recover what the dead runs left (close their steps, kill their processes) and
   * stop the loop with reason `error` and this message. For a loop whose controllers keep dying.
   */
  stopMessage?: string;
}

/** How a run ended, for the service's log. */
export interface RunSummary {
  status: string;
  stopReason?: string;
  parkedUntil?: string;
  /** The run ended because the controller was asked to shut down (SIGTERM, or the service died). */
  shutdown: boolean;
  /** The controller's peak resident memory (VmHWM), in KiB. */
  peakRssKib: number;
  /** The controller's CPU time (user + system) from its start to the run's end, in ms. */
  cpuMs: number;
}

export type ControllerMessage =
  | { type: "ready" }
  | { type: "started"; runId: string }
  | { type: "ended"; summary: RunSummary }
  /** Another live controller holds the loop (`LoopBusyError`). */
  | { type: "busy"; message: string }
  /** The run could not be started or failed with an error (opening the store, a damaged loop, ...). */
  | { type: "failed"; message: string };

/** Exit code of a controller whose step did not reach its boundary within the shutdown grace. */
export const leftMidStepExitCode = 3;

/** How long a step gets to reach its next event boundary after a shutdown request. */
export const shutdownGraceMs = 10_000;

export function isRunOrder(value: unknown): value is RunOrder {
  const order = value as Partial<RunOrder> | null;
  return (
    typeof order === "object" &&
    order !== null &&
    order.type === "run" &&
    typeof order.loopId === "string" &&
    (order.command === "run" || order.command === "resume") &&
    typeof order.logPath === "string" &&
    (order.stopMessage === undefined || typeof order.stopMessage === "string")
  );
}
