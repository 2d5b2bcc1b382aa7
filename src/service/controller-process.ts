/**
 * Starting a loop's controller process (controller-main) and following it: the same node as the service,
 * with the service's own node options and the same file form (`.ts` next to a `.ts` supervisor, `.js` in
 * dist), its stdout and stderr appended to `<loop folder>/controller.log`. The controller is a process
 * group of its own, so a Ctrl-C in the service's terminal reaches the service, which forwards it.
 */
import { spawn } from "node:child_process";
import { closeSync, mkdirSync, openSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { homeLayout } from "../paths.ts";
import type { ControllerMessage, RunOrder } from "./controller-protocol.ts";

/** The controller entry beside this file, in this file's form. */
const entry = fileURLToPath(
  new URL(`./controller-main${import.meta.url.endsWith(".ts") ? ".ts" : ".js"}`, import.meta.url),
);

export interface ControllerExit {
  code: number | null;
  signal: NodeJS.Signals | null;
}

export interface ControllerProcess {
  pid: number;
  /** Every message the controller sends, in order. */
  onMessage(listener: (message: ControllerMessage) => void): void;
  /** Resolves once the controller has said `ready` (its modules are loaded and its store open) or exited. */
  ready: Promise<void>;
  /** Sends the order (once it is ready). */
  order(order: RunOrder): void;
  /**
   * Resolves once the ordered run has started (`run_started` recorded) or will not (the controller said
   * how it ended, or exited); never rejects.
   */
  started: Promise<void>;
  /** Resolves when the process has exited; never rejects. */
  exited: Promise<ControllerExit>;
  /** Sends a signal if it still runs. */
  signal(signal: NodeJS.Signals): void;
}

/** The file a loop's controllers write their output to. */
export function controllerLogPath(home: string, loopId: string): string {
  return join(homeLayout(home).loopDirectory(loopId), "controller.log");
}

/** Starts a controller for `loopId` of the store at `home`, writing its output to the loop's log. */
export function startController(home: string, loopId: string): ControllerProcess {
  const logPath = controllerLogPath(home, loopId);
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
    const { promise: started, resolve: setStarted } = Promise.withResolvers<void>();
    void exited.then(() => {
      setReady();
      setStarted();
    });
    const listeners: ((message: ControllerMessage) => void)[] = [];
    child.on("message", (message: ControllerMessage) => {
      if (message.type === "ready") setReady();
      else setStarted();
      for (const listener of listeners) listener(message);
    });
    // A gone controller's channel errors are its exit's business.
    child.on("error", () => {});
    return {
      pid: child.pid ?? -1,
      onMessage: (listener) => listeners.push(listener),
      ready,
      order(order) {
        void ready.then(() => {
          if (child.connected) child.send(order, (error) => void error);
        });
      },
      exited,
      started,
      signal(signal) {
        if (child.exitCode === null && child.signalCode === null) child.kill(signal);
      },
    };
  } finally {
    closeSync(log);
  }
}

/** The service's own node options, less those of the test runner (a supervisor inside `node --test`). */
function nodeOptions(): string[] {
  return process.execArgv.filter((option) => !/^--(experimental-)?test/.test(option));
}

/** `exit code 1`, `killed by SIGKILL`. */
export function describeExit(exit: ControllerExit): string {
  if (exit.signal) return `killed by ${exit.signal}`;
  return exit.code === null ? "could not be started" : `exit code ${exit.code}`;
}
