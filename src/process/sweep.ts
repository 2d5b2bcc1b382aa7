import { setTimeout as delay } from "node:timers/promises";
import { closeSync, openSync, readdirSync, readFileSync, readSync } from "../files/node-fs.ts";

/**
 * Finding and killing processes by an environment tag. Every process loopwright starts carries both
 * variables below, and its descendants inherit them, so a daemon that left the process group (setsid,
 * double fork) is still found by scanning /proc/<pid>/environ. Linux only: elsewhere nothing is found.
 */

/** Carries the controller's run id: every process of one controller run has it. */
export const runIdVariable = "LOOPWRIGHT_RUN_ID";

/** Carries `<run id>:<step id>`: every process of one step (a gate, a turn) has it. */
export const stepTagVariable = "LOOPWRIGHT_STEP_TAG";

const procRoot = "/proc";
const roundLimit = 10;
const goneWaitMs = 1000;
/** The pause before the confirming scan of a sweep (an exec takes far less; 0 misses in 600 daemon runs). */
const confirmDelayMs = 5;
const pollMs = 20;

/**
 * Pids of live processes (never this one) whose environment holds `variable` with a value that
 * `matches` accepts. Processes we may not read are skipped. Returns [] where /proc is missing.
 */
export function findTaggedProcesses(variable: string, matches: (value: string) => boolean): number[] {
  // Most entries fail to open (kernel threads: ESRCH; other users': EACCES), each failure an Error
  // that is thrown away: without a stack trace to capture it costs less, and leaves less to collect.
  const stackTraceLimit = Error.stackTraceLimit;
  Error.stackTraceLimit = 0;
  try {
    return scanEnvironments(variable, matches);
  } finally {
    Error.stackTraceLimit = stackTraceLimit;
  }
}

function scanEnvironments(variable: string, matches: (value: string) => boolean): number[] {
  let entries: string[];
  try {
    entries = readdirSync(procRoot);
  } catch {
    return [];
  }
  const prefix = Buffer.from(`${variable}=`, "latin1");
  const separatedPrefix = Buffer.concat([Buffer.from([0]), prefix]);
  const found: number[] = [];
  for (const entry of entries) {
    if (!/^\d+$/.test(entry)) continue;
    const pid = Number(entry);
    if (pid === process.pid) continue;
    const environment = readEnvironment(`${procRoot}/${entry}/environ`);
    if (!environment) continue;
    // The first assignment of `variable`: at the start, or right after a separator.
    const start = environment.subarray(0, prefix.length).equals(prefix)
      ? prefix.length
      : indexAfter(environment, separatedPrefix);
    if (start < 0) continue;
    const end = environment.indexOf(0, start);
    if (matches(environment.toString("latin1", start, end < 0 ? environment.length : end))) found.push(pid);
  }
  return found;
}

/** Where the text after the first `needle` in `buffer` starts, or -1. */
function indexAfter(buffer: Buffer, needle: Buffer): number {
  const at = buffer.indexOf(needle);
  return at < 0 ? -1 : at + needle.length;
}

/** Reused by every read below: environments are read by the hundred per scan, rarely over 64 KiB. */
let scratch = Buffer.allocUnsafe(64 * 1024);

/**
 * A process's environment block (valid until the next call), or undefined when it cannot be read (gone,
 * not ours). Read into one reused buffer: a scan reads every process's, twice per command.
 */
function readEnvironment(path: string): Buffer | undefined {
  let descriptor: number;
  try {
    descriptor = openSync(path, "r");
  } catch {
    return undefined;
  }
  try {
    let length = 0;
    for (;;) {
      if (length === scratch.length) {
        const larger = Buffer.allocUnsafe(scratch.length * 2);
        scratch.copy(larger, 0, 0, length);
        scratch = larger;
      }
      const read = readSync(descriptor, scratch, length, scratch.length - length, null);
      if (read === 0) return scratch.subarray(0, length);
      length += read;
    }
  } catch {
    return undefined;
  } finally {
    closeSync(descriptor);
  }
}

/**
 * Sends `signal` (default SIGKILL) to every tagged process, in rounds until no new one appears (a
 * process may fork while we scan), then waits up to one second for them to be gone (a zombie counts
 * as gone). Never signals this process. Resolves with the pids it signalled; never rejects.
 */
export async function sweepTaggedProcesses(
  variable: string,
  matches: (value: string) => boolean,
  signal: NodeJS.Signals = "SIGKILL",
): Promise<number[]> {
  const signalled = new Set<number>();
  let quietRounds = 0;
  for (let round = 0; round < roundLimit; round++) {
    const pids = findTaggedProcesses(variable, matches);
    const fresh = pids.filter((pid) => !signalled.has(pid));
    for (const pid of pids) {
      try {
        process.kill(pid, signal);
        signalled.add(pid);
      } catch {
        // Gone already, or not ours to signal.
      }
    }
    if (fresh.length > 0) {
      quietRounds = 0;
      continue;
    }
    // A process in the middle of exec can show no environment for a moment: one more look, a little later.
    quietRounds += 1;
    if (quietRounds >= 2) break;
    await delay(confirmDelayMs);
  }
  const deadline = Date.now() + goneWaitMs;
  while ([...signalled].some((pid) => !isProcessGone(pid)) && Date.now() < deadline) {
    await delay(pollMs);
  }
  return [...signalled].sort((left, right) => left - right);
}

/**
 * True when `pid` no longer runs: it does not exist, or it is a zombie waiting for a parent to reap it.
 */
export function isProcessGone(pid: number): boolean {
  try {
    const { state } = readStat(String(pid));
    return state === "Z" || state === "X";
  } catch {
    try {
      process.kill(pid, 0);
      return false;
    } catch (error) {
      return (error as NodeJS.ErrnoException).code === "ESRCH";
    }
  }
}

/**
 * True when no live (non-zombie) process is left in process group `groupId`. Orphaned zombies count
 * as gone: the container's init may take its time reaping them. Without /proc, asks kill(-group, 0).
 */
export function isProcessGroupGone(groupId: number): boolean {
  let entries: string[];
  try {
    entries = readdirSync(procRoot);
  } catch {
    try {
      process.kill(-groupId, 0);
      return false;
    } catch (error) {
      return (error as NodeJS.ErrnoException).code === "ESRCH";
    }
  }
  for (const entry of entries) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readStat(entry);
      if (stat.groupId === groupId && stat.state !== "Z" && stat.state !== "X") return false;
    } catch {
      // Exited while we looked.
    }
  }
  return true;
}

/** State and process group from /proc/<pid>/stat; throws when the process is gone. */
function readStat(pid: string): { state: string; groupId: number } {
  const stat = readFileSync(`${procRoot}/${pid}/stat`, "latin1");
  // The fields after the command name, which is in parentheses and may itself contain ") ".
  const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
  return { state: fields[0], groupId: Number(fields[2]) };
}
