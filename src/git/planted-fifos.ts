/**
 * Relief for git blocked on a FIFO planted in a checkout. git opens every `.gitignore` and
 * `.gitattributes` it walks past with a blocking open(): a FIFO of that name (a maker, or a gate writing
 * into the maker's checkout, can make one) keeps `add`, `clean` or `ls-files` waiting for a writer
 * forever, and the loop with it. While a git command in a checkout runs past `reliefAfterMs`, each FIFO
 * of those names under it (not inside `.git`, no link followed) is opened for writing without blocking
 * and closed at once: a git waiting to read it reads it as empty and goes on, as it would for an empty
 * file. A FIFO nobody reads is left alone (the open fails: ENXIO). git never adds a FIFO to a commit, so
 * nothing of it reaches one. The walk runs only for a command that is slow already, at most once per
 * `reliefAfterMs` and never more often than it takes itself; a normal command pays one timer.
 */
import { join } from "node:path";
import { closeSync, constants, openSync, readdirSync } from "../files/node-fs.ts";

/** How long a git command in a checkout runs before the FIFOs under it are looked for. */
export const reliefAfterMs = 1000;
const fifoNames = new Set([".gitignore", ".gitattributes"]);

/** `running`, with the FIFOs under `cwd` relieved while it runs past `reliefAfterMs` (see above). */
export function relievingPlantedFifos<T>(cwd: string, running: Promise<T>): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  let done = false;
  const relieve = () => {
    if (done) return;
    const started = Date.now();
    releaseFifosUnder(cwd);
    timer = setTimeout(relieve, Math.max(reliefAfterMs, 2 * (Date.now() - started)));
    timer.unref();
  };
  timer = setTimeout(relieve, reliefAfterMs);
  timer.unref();
  const stop = () => {
    done = true;
    clearTimeout(timer);
  };
  return running.finally(stop);
}

/** Opens for writing (without blocking) and closes each FIFO named as an ignore or attributes file. */
export function releaseFifosUnder(folder: string): number {
  let released = 0;
  let entries: import("node:fs").Dirent[];
  try {
    entries = readdirSync(folder, { withFileTypes: true });
  } catch {
    return 0;
  }
  for (const entry of entries) {
    const path = join(folder, entry.name);
    if (entry.isDirectory()) {
      if (entry.name !== ".git") released += releaseFifosUnder(path);
    } else if (entry.isFIFO() && fifoNames.has(entry.name.toLowerCase())) {
      try {
        closeSync(openSync(path, constants.O_WRONLY | constants.O_NONBLOCK | constants.O_NOFOLLOW));
        released++;
      } catch {
        // Nobody reads it now (ENXIO), or it is gone: nothing waits on it.
      }
    }
  }
  return released;
}
