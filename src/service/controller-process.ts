/**
 * Starting a controller process (controller-main) and following it: the same node as the service, with
 * the service's own node options and the same file form (`.ts` next to a `.ts` supervisor, `.js` in
 * dist). A controller writes its lines about each loop to that loop's `controller.log`; its own stdout
 * and stderr (what it says before it holds a loop, a crash report) go to `<home>/controllers.log`, or to
 * the loop's log for a controller started for that one loop alone. The controller is a process group of
 * its own, so a Ctrl-C in the service's terminal reaches the service, which forwards it.
 */
import { spawn } from "node:child_process";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { closeSync, mkdirSync, openSync } from "../files/node-fs.ts";
import { homeLayout } from "../paths.ts";
import type { ControllerMessage, LeaveOrder, RunOrder } from "./controller-protocol.ts";

/** The controller entry beside this file, in this file's form. */
const entry = fileURLToPath(
  new URL(`./controller-main${import.meta.url.endsWith(".ts") ? ".ts" : ".js"}`, import.meta.url),
);

export interface ControllerExit {
  code: number | null;
  signal: NodeJS.Signals | null;
}

/** A controller process: it runs the loops it is ordered to (see controller-protocol.ts). */
export interface ControllerProcess {
  pid: number;
  /** Whether it has said `ready` and is still there. */
  isReady(): boolean;
  /** Every message the controller sends, in order. */
  onMessage(listener: (message: ControllerMessage) => void): void;
  /** Resolves once the controller has said `ready` (its modules are loaded and a store open) or exited. */
  ready: Promise<void>;
  /** Sends the order (once it is ready). */
  order(order: RunOrder | LeaveOrder): void;
  /** Resolves when the process has exited; never rejects. */
  exited: Promise<ControllerExit>;
  /** Sends a signal if it still runs. */
  signal(signal: NodeJS.Signals): void;
}

/** The file a loop's controllers write their lines about it to. */
export function controllerLogPath(home: string, loopId: string): string {
  return join(homeLayout(home).loopDirectory(loopId), "controller.log");
}

/** The file controllers write their own output to (see the module's comment). */
export function idleControllersLogPath(home: string): string {
  return join(home, "controllers.log");
}

/**
 * Starts a controller for the store at `home`, its output going to `logPath` (default
 * `idleControllersLogPath`).
 */
export function startController(home: string, logPath = idleControllersLogPath(home)): ControllerProcess {
  mkdirSync(join(logPath, ".."), { recursive: true, mode: 0o700 });
  const log = openSync(logPath, "a", 0o600);
  try {
    const child = spawn(process.execPath, [...nodeOptions(), entry], {
      stdio: ["ignore", log, log, "ipc"],
      env: { ...process.env, LOOPWRIGHT_HOME: home },
      detached: true,
      serialization: "json",
    });
    const exited = new Promise<ControllerExit>((resolve) => {
      child.once("exit", (code, signal) => resolve({ code, signal }));
      child.once("error", () => resolve({ code: null, signal: null })); // could not be spawned
    });
    const { promise: ready, resolve: setReady } = Promise.withResolvers<void>();
    let readyNow = false;
    void exited.then(() => {
      readyNow = false;
      setReady();
    });
    const listeners: ((message: ControllerMessage) => void)[] = [];
    child.on("message", (message: ControllerMessage) => {
      if (message.type === "ready") {
        readyNow = child.exitCode === null;
        setReady();
      }
      for (const listener of listeners) listener(message);
    });
    // A gone controller's channel errors are its exit's business.
    child.on("error", () => {});
    return {
      pid: child.pid ?? -1,
      isReady: () => readyNow && child.connected,
      onMessage: (listener) => listeners.push(listener),
      ready,
      order(order) {
        void ready.then(() => {
          if (child.connected) child.send(order, (error) => void error);
        });
      },
      exited,
      signal(signal) {
        if (child.exitCode === null && child.signalCode === null) child.kill(signal);
      },
    };
  } finally {
    closeSync(log);
  }
}

/**
 * The service's own node options, less those of the test runner (a supervisor inside `node --test`),
 * plus a young generation of 1 MiB per semi-space unless one is set: a controller mostly waits on its
 * children, and the default (up to 16 MiB per semi-space) costs each of them 10–15 MiB of peak RSS.
 */
function nodeOptions(): string[] {
  const options = process.execArgv.filter((option) => !/^--(experimental-)?test/.test(option));
  const given = [...options, ...(process.env.NODE_OPTIONS ?? "").split(/\s+/)];
  if (!given.some((option) => option.startsWith("--max-semi-space-size")))
    options.push("--max-semi-space-size=1");
  return options;
}

/** `exit code 1`, `killed by SIGKILL`. */
export function describeExit(exit: ControllerExit): string {
  if (exit.signal) return `killed by ${exit.signal}`;
  return exit.code === null ? "could not be started" : `exit code ${exit.code}`;
}
