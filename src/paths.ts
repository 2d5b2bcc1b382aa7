import { homedir } from "node:os";
import { join } from "node:path";

/**
 * Where loopwright keeps all its state: `$LOOPWRIGHT_HOME`, else `$XDG_STATE_HOME/loopwright`, else
 * `~/.local/state/loopwright`. Never inside the user's checkout.
 */
export function loopwrightHome(env: NodeJS.ProcessEnv = process.env): string {
  if (env.LOOPWRIGHT_HOME) return env.LOOPWRIGHT_HOME;
  if (env.XDG_STATE_HOME) return join(env.XDG_STATE_HOME, "loopwright");
  return join(homedir(), ".local", "state", "loopwright");
}

/** The on-disk layout under the home folder, one place for every path loopwright writes. */
export function homeLayout(home: string) {
  return {
    database: join(home, "loopwright.db"),
    loopDirectory: (loopId: string) => join(home, "loops", loopId),
    makerWorktree: (loopId: string) => join(home, "loops", loopId, "worktrees", "maker"),
    gateWorktree: (loopId: string) => join(home, "loops", loopId, "worktrees", "gates"),
    scratchWorktree: (loopId: string, label: string) => join(home, "loops", loopId, "worktrees", label),
    iterationDirectory: (loopId: string, iteration: number) =>
      join(home, "loops", loopId, "iterations", String(iteration)),
  };
}
