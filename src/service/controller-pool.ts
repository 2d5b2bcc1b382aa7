/**
 * The controller processes of the service, each running up to `loopsPerController` loops in its life:
 * one node process and one set of loaded modules serve many loops, so fifty loops cost a few processes'
 * memory and start-up, not fifty. Processes are started ahead (`idle` free places in ready ones), so a
 * loop the service starts does not wait for node to boot. `take` places a loop in a ready process with
 * room (the fullest first), else in one still loading, else in a new one. A process whose loops have all
 * ended leaves when the others hold the `idle` free places without it.
 *
 * A loop may ask to run alone, in a process that holds no other loop: the service does so for a loop
 * whose controller died, so that a loop that brings its process down takes no other loop with it twice,
 * and its deaths in a row count only its own.
 */

import {
  type ControllerExit,
  type ControllerProcess,
  controllerLogPath,
  startController,
} from "./controller-process.ts";
import type { ClosingMessage, RunOrder } from "./controller-protocol.ts";

/** A loop's place in a controller process. */
export interface LoopController {
  /** The controller process's pid (the other loops it runs share it). */
  pid: number;
  /** Sends the order to run the loop (once the process is ready). */
  order(order: Omit<RunOrder, "last">): void;
  /** Resolves with the run's id once it has started, or undefined once it will not; never rejects. */
  started: Promise<string | undefined>;
  /** How the loop's run ended: the controller's closing message, or its exit if it left without one. */
  finished: Promise<{ closing: ClosingMessage } | { exit: ControllerExit }>;
  /** Sends a signal to the process, if it still runs: it reaches every loop the process runs. */
  signal(signal: NodeJS.Signals): void;
}

export interface ControllerPool {
  /** A place for `loopId`: in a process shared with other loops, or, with `alone`, in one of its own. */
  take(loopId: string, options?: { alone?: boolean }): LoopController;
  /**
   * Starts no more and sends `signal` to the processes that run no loop (which exit: they have no run to
   * end); resolves once they have exited.
   */
  close(signal: NodeJS.Signals): Promise<void>;
}

/**
 * Loops one controller process runs in its life, unless told otherwise. Fifty loops then take thirteen
 * processes (bench/service-throughput.ts: their peak RSS sum 1.1 GiB instead of 4.1 GiB with a process
 * per loop, half the CPU time); a crash takes at most four loops down once. More per process saves
 * little more CPU, and the loops of one process wait on each other's blocking calls (a spawn blocks
 * its event loop for the fork, longer the bigger the process).
 */
export const defaultLoopsPerController = 4;

export interface ControllerPoolOptions {
  /** Free places kept ready in started processes (0: a process is started when a loop needs one). */
  idle: number;
  /** How many loops one process runs in its life, at most (1: a process per loop). */
  loopsPerController: number;
}

interface Host {
  process: ControllerProcess;
  /** Loops given to it so far. */
  given: number;
  /** Loops it will be given in its life. */
  capacity: number;
  /** Loops it runs now. */
  holding: number;
}

export function createControllerPool(home: string, options: ControllerPoolOptions): ControllerPool {
  const capacity = Math.max(1, options.loopsPerController);
  const living = new Set<Host>();
  /** The living processes that may be given more loops. */
  const open = () => [...living].filter((host) => host.given < host.capacity);
  let closed = false;
  const start = (places: number, logPath?: string): Host => {
    const host: Host = { process: startController(home, logPath), given: 0, capacity: places, holding: 0 };
    living.add(host);
    void host.process.exited.then(() => {
      living.delete(host);
      // Replaced after a pause: a controller that cannot start must not spin.
      setTimeout(refill, 1_000).unref();
    });
    return host;
  };
  const refill = () => {
    const free = () => open().reduce((sum, host) => sum + host.capacity - host.given, 0);
    while (!closed && free() < options.idle) start(capacity);
  };
  refill();

  const give = (host: Host, loopId: string): LoopController => {
    host.given += 1;
    host.holding += 1;
    const last = host.given >= host.capacity;
    const { promise: started, resolve: setStarted } = Promise.withResolvers<string | undefined>();
    const { promise: finished, resolve: finish } = Promise.withResolvers<
      { closing: ClosingMessage } | { exit: ControllerExit }
    >();
    host.process.onMessage((message) => {
      if (message.type === "ready" || message.loopId !== loopId) return;
      if (message.type === "started") return setStarted(message.runId);
      setStarted(undefined);
      finish({ closing: message });
    });
    void host.process.exited.then((exit) => {
      setStarted(undefined);
      finish({ exit });
    });
    void finished.then(() => {
      host.holding -= 1;
      // An empty process the free places of the others make spare leaves: a quiet service keeps `idle` places.
      if (host.holding > 0 || host.given >= host.capacity || closed) return;
      const others = open().filter((other) => other !== host);
      if (others.reduce((sum, other) => sum + other.capacity - other.given, 0) < options.idle) return;
      host.capacity = host.given;
      host.process.order({ type: "leave" });
    });
    return {
      pid: host.process.pid,
      order: (order) => host.process.order(last ? { ...order, last } : order),
      started,
      finished,
      signal: (signal) => host.process.signal(signal),
    };
  };

  return {
    take(loopId, { alone = false } = {}) {
      let host: Host | undefined;
      if (alone) {
        const unused = open().filter((candidate) => candidate.given === 0);
        host = unused.find((candidate) => candidate.process.isReady()) ?? unused[0];
        host ??= start(1, controllerLogPath(home, loopId));
        host.capacity = host.given + 1;
      } else {
        const roomy = open().sort((a, b) => b.given - a.given);
        host = roomy.find((candidate) => candidate.process.isReady()) ?? roomy[0] ?? start(capacity);
      }
      const controller = give(host, loopId);
      refill();
      return controller;
    },
    async close(signal) {
      closed = true;
      const idle = [...living].filter((host) => host.holding === 0);
      for (const host of idle) host.process.signal(signal);
      await Promise.all(idle.map((host) => host.process.exited));
    },
  };
}
