/**
 * Whether a process is still there, told apart from a later process that got the same pid.
 * Linux reads /proc; other systems ask `ps`.
 */

import { hostname } from "node:os";
import type { LockOwner } from "../core/lock-owner.ts";
import { readFileSync } from "../files/node-fs.ts";

/**
 * The start time of process `pid` as the OS reports it, as an opaque string that stays the same for
 * the life of the process: on Linux field 22 of /proc/<pid>/stat (clock ticks since boot), elsewhere
 * `ps -o lstart=`. Undefined when the process does not exist or the OS will not say.
 */
export function processStartTime(pid: number): string | undefined {
  const fields = procStatFields(pid);
  if (fields) return fields.startTime;
  if (process.platform === "linux") return undefined;
  try {
    // Loaded here, off Linux only: opening the store (`ls`, `show`) never starts a process.
    const { execFileSync } = process.getBuiltinModule("node:child_process");
    const started = execFileSync("ps", ["-o", "lstart=", "-p", String(pid)], {
      encoding: "utf8",
      stdio: ["ignore", "pipe", "ignore"],
    }).trim();
    return started === "" ? undefined : started;
  } catch {
    return undefined;
  }
}

/**
 * True when a process with this pid exists and is not a zombie (a zombie has exited and only waits to
 * be reaped). A process owned by another user counts as alive.
 */
export function isProcessAlive(pid: number): boolean {
  if (!Number.isInteger(pid) || pid <= 0) return false;
  try {
    process.kill(pid, 0);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== "EPERM") return false;
  }
  return procStatFields(pid)?.state !== "Z";
}

/** The lock owner that stands for this process: its pid, host name and start time, under `runId`. */
export function currentLockOwner(runId: string): LockOwner {
  return {
    runId,
    pid: process.pid,
    host: hostname(),
    processStart: processStamp(process.pid),
  };
}

/**
 * A process's start time qualified by the boot it belongs to ("" when unknown): start times count from
 * boot, so after a reboot a new process could reuse both a dead holder's pid and its start time.
 */
export function processStamp(pid: number): string {
  return stampOf(processStartTime(pid));
}

function stampOf(startTime: string | undefined): string {
  if (startTime === undefined) return "";
  const bootId = (() => {
    try {
      return readFileSync("/proc/sys/kernel/random/boot_id", "utf8").trim();
    } catch {
      return "";
    }
  })();
  return bootId ? `${bootId}/${startTime}` : startTime;
}

/**
 * Whether a lock owner may still be running. An owner on another host is assumed alive (we cannot
 * look); on this host it is alive when its pid is alive and, if both start times are known, the
 * process behind the pid started when the owner's did (otherwise the pid was reused).
 */
export function isLockOwnerAlive(owner: LockOwner): boolean {
  if (owner.host !== hostname()) return true;
  if (!isProcessAlive(owner.pid)) return false;
  const startTime = processStartTime(owner.pid);
  if (owner.processStart === "" || startTime === undefined) return true;
  return stampOf(startTime) === owner.processStart;
}

/** The state (field 3) and start time (field 22) of /proc/<pid>/stat, or undefined without /proc. */
function procStatFields(pid: number): { state: string; startTime: string } | undefined {
  let stat: string;
  try {
    stat = readFileSync(`/proc/${pid}/stat`, "utf8");
  } catch {
    return undefined;
  }
  // Field 2 is the command name in parentheses and may itself hold spaces and parentheses; the
  // last ")" ends it. The fields after it start at field 3.
  const rest = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
  const state = rest[0];
  const startTime = rest[22 - 3];
  if (state === undefined || startTime === undefined) return undefined;
  return { state, startTime };
}
