import { type ChildProcess, spawn } from "node:child_process";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { StringDecoder } from "node:string_decoder";
import { setTimeout as delay } from "node:timers/promises";
import { createOutputTail } from "../core/output-tail.ts";
import { createLineRedactor, type Redact } from "../core/redact.ts";
import { mkdtempSync, rmSync, statSync } from "../files/node-fs.ts";
import { sandboxAvailability } from "../sandbox/sandbox-availability.ts";
import { bubblewrapArguments, type SandboxPlan } from "../sandbox/sandbox-plan.ts";
import { resolvePlan } from "../sandbox/turn-sandbox.ts";
import { logLimitFromEnvironment, openCappedLog } from "./capped-log.ts";
import { monotonicMs } from "./monotonic-clock.ts";
import { isProcessGroupGone, runIdVariable, stepTagVariable, sweepTaggedProcesses } from "./sweep.ts";

/** What to run and how; see `runCommand`. */
export interface RunCommandOptions {
  /** Run with `sh -c`. */
  command: string;
  /** Run this executable with these arguments directly, without a shell; `command` then only names it. */
  argv?: readonly string[];
  cwd: string;
  /** Merged over process.env; the two tag variables are set on top. */
  env?: Record<string, string>;
  /** Written to the command's stdin, which is then closed; without it stdin is /dev/null. */
  stdin?: string;
  /** Wall-clock limit in ms; 0 means none. */
  timeoutMs: number;
  /** Aborting stops the command (and everything it started) and reports `cancelled`. */
  signal?: AbortSignal;
  /** Where the merged stdout and stderr go, redacted, line by line (truncated first, see `appendLog`). */
  logPath?: string;
  /** Append to `logPath` instead of truncating it (several commands of one turn into one log). */
  appendLog?: boolean;
  /** Written at the top of the log, redacted (end it with a newline). */
  logHeader?: string;
  /**
   * The last line of the log once the command has ended (end it with a newline), not redacted, written
   * after the kept end of a capped log; not written when it could not start (`spawnError`) or the log
   * failed. Given the outcome, less `logError`, which closing the log may still set.
   */
  logFooter?: (outcome: CommandOutcome) => string;
  /** Applied to everything that leaves: log, tail, captured stdout, onOutput. Default: none. */
  redact?: Redact;
  /** The controller's run id, exported as LOOPWRIGHT_RUN_ID. */
  runId: string;
  /** This step's id; LOOPWRIGHT_STEP_TAG is `<runId>:<stepId>`, and the survivor sweep matches it. */
  stepId: string;
  /** Redacted output as it arrives, in whole lines (the last one may lack its newline). */
  onOutput?: (chunk: string, stream: "stdout" | "stderr") => void;
  /** Cap of the log file in bytes (head and tail kept); default `LOOPWRIGHT_LOG_LIMIT` or 16 MiB. */
  logLimitBytes?: number;
  /** Keep stdout on its own (redacted, first 1 MiB) in `CommandOutcome.stdout`. */
  captureStdout?: boolean;
  /** Between SIGTERM and SIGKILL when stopping; default 1000 ms. */
  killGraceMs?: number;
  /**
   * Run inside the operating-system sandbox with this plan, plus a private temporary folder (TMPDIR)
   * removed afterwards, when a sandbox is available here (`sandboxAvailability`); otherwise as usual.
   */
  sandbox?: SandboxPlan;
}

/** How a command ended. Runtime failures are described here, never thrown. */
export interface CommandOutcome {
  /** Null when it was killed by a signal or never started. */
  exitCode: number | null;
  /** The signal that ended it, e.g. "SIGTERM", or null. */
  signal: string | null;
  timedOut: boolean;
  cancelled: boolean;
  durationMs: number;
  /** The last 4 KiB of the merged output, redacted, starting at a line boundary where possible. */
  tail: string;
  /** Only with `captureStdout`. */
  stdout?: string;
  /** True when stdout passed 1 MiB and the rest was dropped (only with `captureStdout`). */
  stdoutTruncated?: boolean;
  /** Why it could not start (missing working directory, no shell), in one line. */
  spawnError?: string;
  /** Tagged processes still alive after it ended (daemons, escaped children), now killed. */
  survivorsKilled: number[];
  /** Why the log could not be written (a full disk), in one line; the command itself is unaffected. */
  logError?: string;
  /** True when it ran inside the operating-system sandbox. */
  sandboxed?: boolean;
}

/**
 * The environment commands inherit: ours, less node's test-runner context. A gate running `node --test`
 * under a loopwright that itself runs inside a node test would otherwise skip every test and pass.
 */
function inheritedEnvironment(): NodeJS.ProcessEnv {
  const { NODE_TEST_CONTEXT: _testContext, ...rest } = process.env;
  return rest;
}

/** Cap of `CommandOutcome.stdout`, in bytes. */
export const stdoutCaptureLimit = 1024 * 1024;
const defaultKillGraceMs = 1000;
/** How long to wait for the output pipes to close once the command and its survivors are gone. */
const streamCloseWaitMs = 500;
const groupPollMs = 25;

/**
 * Runs a shell command in its own process group with the run and step tags in its environment.
 * On timeout or abort: SIGTERM to the group, SIGKILL after the grace. In every case, once the shell
 * has exited, tagged survivors (background daemons, setsid escapes) are killed and reported, so that
 * nothing keeps running and nothing holds the output pipes open. Never throws for runtime failures.
 */
export async function runCommand(options: RunCommandOptions): Promise<CommandOutcome> {
  const started = monotonicMs();
  const redact = options.redact ?? ((text: string) => text);
  const output = createOutputCollector(options, redact);
  const outcome = async (fields: Partial<CommandOutcome>): Promise<CommandOutcome> => {
    const ended: CommandOutcome = {
      exitCode: null,
      signal: null,
      timedOut: false,
      cancelled: false,
      durationMs: Math.round(monotonicMs() - started),
      tail: output.tail(),
      survivorsKilled: [],
      ...(options.captureStdout
        ? { stdout: output.stdout(), stdoutTruncated: output.stdoutTruncated() }
        : {}),
      ...fields,
    };
    // The footer goes through the open log, not a second open of the file after it is closed.
    await output.close(ended.spawnError ? undefined : options.logFooter?.(ended));
    const logError = output.logError();
    return logError ? { ...ended, logError } : ended;
  };

  if (options.signal?.aborted) {
    output.note("not started: cancelled");
    return outcome({ cancelled: true });
  }
  const cwdProblem = checkDirectory(options.cwd);
  if (cwdProblem) {
    output.note(`could not start: ${cwdProblem}`);
    return outcome({ spawnError: cwdProblem });
  }

  const stepTag = `${options.runId}:${options.stepId}`;
  const sandbox = options.sandbox && sandboxAvailability().available ? createSandbox(options) : undefined;
  const [executable, ...parameters] = sandbox?.argv ?? options.argv ?? ["sh", "-c", options.command];
  const child = spawn(executable, parameters, {
    cwd: options.cwd,
    env: {
      ...inheritedEnvironment(),
      ...options.env,
      ...sandbox?.env,
      [runIdVariable]: options.runId,
      [stepTagVariable]: stepTag,
    },
    detached: true,
    stdio: [options.stdin === undefined ? "ignore" : "pipe", "pipe", "pipe"],
  });
  const streamsClosed = Promise.all([
    output.attach(child.stdout, "stdout"),
    output.attach(child.stderr, "stderr"),
  ]);
  if (child.stdin) {
    child.stdin.on("error", () => {}); // The command may exit without reading it (EPIPE).
    child.stdin.end(options.stdin);
  }
  const ended = waitForEnd(child);

  let timedOut = false;
  let cancelled = false;
  let stopping: Promise<void> | undefined;
  const stop = () => {
    stopping ??= stopGroup(child, options.killGraceMs ?? defaultKillGraceMs);
  };
  const timer =
    options.timeoutMs > 0
      ? setTimeout(() => {
          timedOut = true;
          stop();
        }, options.timeoutMs)
      : undefined;
  const onAbort = () => {
    if (timedOut) return;
    cancelled = true;
    stop();
  };
  options.signal?.addEventListener("abort", onAbort, { once: true });

  const end = await ended;
  clearTimeout(timer);
  options.signal?.removeEventListener("abort", onAbort);
  await stopping;
  sandbox?.remove();
  if (end.error) {
    output.note(`could not start: ${end.error}`);
    return outcome({ spawnError: end.error });
  }

  // Everything still carrying the step tag, then the group for platforms without /proc.
  const survivorsKilled = await sweepTaggedProcesses(stepTagVariable, (value) => value === stepTag);
  signalGroup(child, "SIGKILL");
  if (!(await settlesWithin(streamsClosed, streamCloseWaitMs))) {
    // Something untagged still holds the pipes: stop reading, keep what arrived.
    child.stdout?.destroy();
    child.stderr?.destroy();
    await settlesWithin(streamsClosed, streamCloseWaitMs);
  }
  return outcome({
    exitCode: end.code,
    signal: end.signal,
    timedOut,
    cancelled,
    survivorsKilled,
    ...(sandbox ? { sandboxed: true } : {}),
  });
}

/** The bubblewrap command line for `options.sandbox`, with its private temporary folder. */
function createSandbox(options: RunCommandOptions) {
  const temporary = mkdtempSync(join(tmpdir(), "loopwright-sandbox-"));
  const plan = options.sandbox as SandboxPlan;
  const resolved = resolvePlan({ mounts: [...plan.mounts, { access: "write", path: temporary }] });
  const command = options.argv ?? ["sh", "-c", options.command];
  return {
    argv: ["bwrap", ...bubblewrapArguments(resolved, options.cwd, command)],
    env: { TMPDIR: temporary, TMP: temporary, TEMP: temporary },
    remove: () => rmSync(temporary, { recursive: true, force: true }),
  };
}

interface ProcessEnd {
  code: number | null;
  signal: string | null;
  error?: string;
}

/** Resolves when the shell exits, or when it could not be spawned. */
function waitForEnd(child: ChildProcess): Promise<ProcessEnd> {
  return new Promise((resolve) => {
    child.once("exit", (code, signal) => resolve({ code, signal }));
    child.once("error", (error) => resolve({ code: null, signal: null, error: error.message }));
  });
}

/** SIGTERM to the group; SIGKILL once the grace has passed unless the whole group is gone by then. */
async function stopGroup(child: ChildProcess, graceMs: number): Promise<void> {
  signalGroup(child, "SIGTERM");
  const deadline = monotonicMs() + graceMs;
  while (groupExists(child) && monotonicMs() < deadline) await delay(groupPollMs);
  signalGroup(child, "SIGKILL");
}

/** True when `promise` settled within `ms`; the timer does not outlive the answer. */
async function settlesWithin(promise: Promise<unknown>, ms: number): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<false>((resolve) => {
    timer = setTimeout(() => resolve(false), ms);
  });
  try {
    return await Promise.race([promise.then(() => true), timeout]);
  } finally {
    clearTimeout(timer);
  }
}

function signalGroup(child: ChildProcess, signal: NodeJS.Signals): void {
  if (child.pid === undefined) return;
  try {
    process.kill(-child.pid, signal);
  } catch {
    // The group is gone already.
  }
}

function groupExists(child: ChildProcess): boolean {
  return child.pid !== undefined && !isProcessGroupGone(child.pid);
}

function checkDirectory(path: string): string | undefined {
  try {
    if (!statSync(path).isDirectory()) return `working directory is not a directory: ${path}`;
  } catch {
    return `working directory does not exist: ${path}`;
  }
  return undefined;
}

/** The redacted output of one command: log file, tail, captured stdout, live callback. */
function createOutputCollector(options: RunCommandOptions, redact: Redact) {
  const tail = createOutputTail();
  // An unwritable log must not fail the command: the tail still tells, and `logError` says why.
  const log = options.logPath
    ? openCappedLog(options.logPath, {
        append: options.appendLog,
        limitBytes: options.logLimitBytes ?? logLimitFromEnvironment(),
      })
    : undefined;
  if (log && options.logHeader) log.write(redact(options.logHeader));
  const stdoutParts: string[] = [];
  let stdoutBytes = 0;
  let stdoutTruncated = false;

  const emit = (text: string, stream: "stdout" | "stderr") => {
    if (text === "") return;
    log?.write(text);
    tail.append(text);
    if (stream === "stdout" && options.captureStdout) keepStdout(text);
    options.onOutput?.(text, stream);
  };
  const keepStdout = (text: string) => {
    if (stdoutTruncated) return;
    const bytes = Buffer.byteLength(text);
    if (stdoutBytes + bytes <= stdoutCaptureLimit) {
      stdoutParts.push(text);
      stdoutBytes += bytes;
      return;
    }
    const room = Buffer.from(text).subarray(0, stdoutCaptureLimit - stdoutBytes);
    stdoutParts.push(new StringDecoder("utf8").write(room));
    stdoutBytes = stdoutCaptureLimit;
    stdoutTruncated = true;
  };

  return {
    /** Streams a pipe through a decoder and a line redactor; resolves when the pipe has closed. */
    attach(pipe: NodeJS.ReadableStream | null, stream: "stdout" | "stderr"): Promise<void> {
      if (!pipe) return Promise.resolve();
      const decoder = new StringDecoder("utf8");
      const lines = createLineRedactor(redact);
      return new Promise((resolve) => {
        let finished = false;
        const finish = () => {
          if (finished) return;
          finished = true;
          emit(lines.push(decoder.end()) + lines.flush(), stream);
          resolve();
        };
        pipe.on("data", (chunk: Buffer) => emit(lines.push(decoder.write(chunk)), stream));
        pipe.on("error", finish);
        pipe.on("close", finish);
      });
    },
    /** A line of loopwright's own in the log (not in the tail), e.g. why the command did not start. */
    note(text: string) {
      log?.write(`[loopwright] ${text}\n`);
    },
    tail: () => tail.text(),
    stdout: () => stdoutParts.join(""),
    stdoutTruncated: () => stdoutTruncated,
    logError: () => log?.failure(),
    close: (footer?: string): Promise<void> => log?.close(footer) ?? Promise.resolve(),
  };
}
