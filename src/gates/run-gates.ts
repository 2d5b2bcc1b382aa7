import { join } from "node:path";
import type { Redact } from "../core/redact.ts";
import { mkdirSync } from "../files/node-fs.ts";
import { type CommandOutcome, runCommand } from "../process/run-command.ts";

/** One deterministic gate to run: its pinned command and limits. */
export interface GateRun {
  id: string;
  /** The gate kind from the spec (`tests-pass`, `lint-clean`, ...); recorded, not interpreted here. */
  kind: string;
  command: string;
  /** Wall-clock limit in ms; 0 means none. Past it the gate's whole process tree is killed. */
  timeoutMs: number;
  /** True: runs alongside the other parallel gates. False: runs alone, after them, one at a time. */
  parallel: boolean;
}

/** Where and how to run a set of gates. */
export interface RunGatesOptions {
  /** The gate worktree, checked out at the SHA under test. */
  cwd: string;
  /** Each gate's full log goes to `<logDirectory>/<gate id>.log`; the folder is created if missing. */
  logDirectory: string;
  /** Extra environment for every gate, merged over process.env. */
  env?: Record<string, string>;
  /** Applied to logs and tails; default none. */
  redact?: Redact;
  /** The controller's run id (LOOPWRIGHT_RUN_ID). */
  runId: string;
  /** Each gate's step id is `<stepPrefix>:<gate id>`, e.g. `iteration-3-gates:lint`. */
  stepPrefix: string;
  /** Aborting kills the running gates and skips the rest; all are reported `cancelled`. */
  signal?: AbortSignal;
  onGateStarted?: (id: string) => void;
  onGateEnded?: (outcome: GateOutcome) => void;
}

/** How one gate ended. `passed` means exit code 0 within its time limit. */
export interface GateOutcome {
  id: string;
  /** Null when it was killed by a signal or never started. */
  exitCode: number | null;
  passed: boolean;
  timedOut: boolean;
  cancelled: boolean;
  durationMs: number;
  logPath: string;
  /** The last 4 KiB of its output, redacted. */
  tail: string;
  /** Processes it left running (daemons), killed after it exited. */
  survivorsKilled: number[];
  /** Why it could not start, in one line. */
  spawnError?: string;
  /** Why its log could not be written (a full disk), in one line; its result still stands. */
  logError?: string;
}

/**
 * Runs every gate, even after one fails: first all parallel gates together, then each sequential gate
 * alone, in input order. Resolves with one outcome per gate, in input order; never rejects for a
 * runtime failure (a missing command is exit 127 with the shell's message in its log).
 */
export async function runGates(gates: GateRun[], options: RunGatesOptions): Promise<GateOutcome[]> {
  try {
    // A folder or two, made in microseconds: synchronously, rather than through libuv's thread pool
    // (a round trip per folder, milliseconds on a busy machine) before the first gate can start.
    mkdirSync(options.logDirectory, { recursive: true });
  } catch {
    // The logs will be missing; every gate still runs and reports its tail.
  }
  const outcomes: GateOutcome[] = new Array(gates.length);
  const runOne = async (index: number) => {
    outcomes[index] = await runGate(gates[index], options);
  };
  const indexes = gates.map((_, index) => index);
  await Promise.all(indexes.filter((index) => gates[index].parallel).map(runOne));
  for (const index of indexes.filter((index) => !gates[index].parallel)) await runOne(index);
  return outcomes;
}

async function runGate(gate: GateRun, options: RunGatesOptions): Promise<GateOutcome> {
  const logPath = join(options.logDirectory, `${gate.id}.log`);
  options.onGateStarted?.(gate.id);
  const result = await runCommand({
    command: gate.command,
    cwd: options.cwd,
    env: options.env,
    timeoutMs: gate.timeoutMs,
    signal: options.signal,
    logPath,
    logHeader: `$ ${gate.command}\n# gate ${gate.id} (${gate.kind}) in ${options.cwd}\n`,
    logFooter: (ended) => `# ${describeEnd(ended)}\n`,
    redact: options.redact,
    runId: options.runId,
    stepId: `${options.stepPrefix}:${gate.id}`,
  });
  const outcome: GateOutcome = {
    id: gate.id,
    exitCode: result.exitCode,
    passed: result.exitCode === 0 && !result.timedOut && !result.cancelled,
    timedOut: result.timedOut,
    cancelled: result.cancelled,
    durationMs: result.durationMs,
    logPath,
    tail: result.tail,
    survivorsKilled: result.survivorsKilled,
    ...(result.spawnError ? { spawnError: result.spawnError } : {}),
    ...(result.logError ? { logError: result.logError } : {}),
  };
  options.onGateEnded?.(outcome);
  return outcome;
}

/** One line for the end of a log, e.g. `exit 1 after 2.3 s` or `timed out after 60.0 s (SIGKILL)`. */
function describeEnd(outcome: CommandOutcome): string {
  const after = `after ${(outcome.durationMs / 1000).toFixed(1)} s`;
  const how = outcome.signal ? ` (${outcome.signal})` : "";
  const survivors = outcome.survivorsKilled.length
    ? `; killed ${outcome.survivorsKilled.length} process(es) it left running`
    : "";
  if (outcome.timedOut) return `timed out ${after}${how}${survivors}`;
  if (outcome.cancelled) return `cancelled ${after}${how}${survivors}`;
  return `exit ${outcome.exitCode ?? "none"}${how} ${after}${survivors}`;
}
