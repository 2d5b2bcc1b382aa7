/**
 * Finding the processes a loop left running, straight from /proc (Linux). Every process loopwright
 * starts inherits the sandbox's LOOPWRIGHT_HOME and its run's LOOPWRIGHT_RUN_ID, daemons that left the
 * process group included, which is how these find them. A zombie has exited: it never counts.
 */
import { readdirSync, readFileSync } from "node:fs";

/**
 * Live processes whose environment carries `LOOPWRIGHT_HOME=<home>`, or whose command line `also`
 * accepts (for a child whose environment its engine cleaned), as `<pid> <command line>`.
 */
export function survivors(home: string, also: (commandLine: string) => boolean = () => false): string[] {
  const marker = `\0LOOPWRIGHT_HOME=${home}\0`;
  return liveProcesses((environment, commandLine) => environment.includes(marker) || also(commandLine)).map(
    (found) => `${found.pid} ${found.commandLine}`,
  );
}

/** Pids of live processes whose LOOPWRIGHT_RUN_ID is one of `runIds`. */
export function processesOfRuns(runIds: Set<string>): number[] {
  const prefix = "LOOPWRIGHT_RUN_ID=";
  return liveProcesses((environment) => {
    const tag = environment.split("\0").find((assignment) => assignment.startsWith(prefix));
    return tag !== undefined && runIds.has(tag.slice(prefix.length));
  }).map((found) => found.pid);
}

/** Alive = exists and is not a zombie. */
export function isAlive(pid: number): boolean {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "latin1");
    const state = stat.slice(stat.lastIndexOf(")") + 2, stat.lastIndexOf(")") + 3);
    return state !== "Z" && state !== "X";
  } catch {
    return false;
  }
}

/** The process's command name (`comm`), or "" once it is gone. */
export function commandName(pid: number): string {
  try {
    return readFileSync(`/proc/${pid}/comm`, "utf8").trim();
  } catch {
    return "";
  }
}

/**
 * Live processes for which `select` says yes, given the environment (`\0`-separated, with a `\0` before
 * the first and after the last assignment) and the command line (arguments joined by spaces).
 */
function liveProcesses(
  select: (environment: string, commandLine: string) => boolean,
): { pid: number; commandLine: string }[] {
  const found: { pid: number; commandLine: string }[] = [];
  for (const entry of readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    const pid = Number(entry);
    try {
      if (!isAlive(pid)) continue;
      const environment = `\0${readFileSync(`/proc/${entry}/environ`, "latin1")}`;
      const commandLine = readFileSync(`/proc/${entry}/cmdline`, "latin1").replaceAll("\0", " ").trim();
      if (select(environment, commandLine)) found.push({ pid, commandLine });
    } catch {
      // Gone while we looked, or not ours to read.
    }
  }
  return found;
}
