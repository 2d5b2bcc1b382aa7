/**
 * The `command` engine: any shell command as maker, verifier or replanner. Contract (documented in the
 * README): run with `sh -c` in the worktree; the brief on stdin and in `$LOOPWRIGHT_BRIEF_FILE`; the
 * JSON context in `$LOOPWRIGHT_CONTEXT_FILE`; `LOOPWRIGHT_ROLE`, `LOOPWRIGHT_ITERATION`,
 * `LOOPWRIGHT_LOOP` set. Its stdout is its answer (the verifier's JSON) or its account (the maker's,
 * last 2 KiB). A non-zero exit is a crash. It runs in the operating-system sandbox where there is one: a
 * maker writes only its worktree and a temporary folder, a verifier or replanner writes nothing but
 * temporary files and sees of loopwright's state only its brief, its context and the evidence. A turn
 * runs in run-command-turn.ts, loaded at the first turn: checking a spec loads none of it.
 */
import type { Engine } from "../core/engine.ts";

/** How much of a maker's stdout is kept as its account of the attempt. */
export const accountLimit = 2048;

const turnCode = () => import("./run-command-turn.ts");

export function createCommandEngine(command: string): Engine {
  return {
    name: "command",
    family: `command:${command}`,
    runTurn: async (request) => (await turnCode()).runCommandTurn(command, request),
    preload: () => turnCode().then(ignore, ignore),
  };
}

function ignore(): void {}
