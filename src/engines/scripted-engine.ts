/**
 * The `scripted` engine: replays a script of turns deterministically, with no model. The Nth turn of a
 * role plays `turns[N-1]`; past the end, the last turn repeats. A turn's steps run in a fixed order:
 * delete, write, append, run, sleep, say/print, verdict, replan, exit. `{{iteration}}` in written
 * text is replaced by the iteration number. It is what `demo`, rehearsals and most tests use. A turn
 * plays in play-scripted-turn.ts, loaded at the first turn: checking a spec loads none of it.
 */
import type { Engine } from "../core/engine.ts";
import type { ScriptedTurn } from "../core/spec.ts";

const turnCode = () => import("./play-scripted-turn.ts");

export function createScriptedEngine(turns: ScriptedTurn[]): Engine {
  return {
    name: "scripted",
    family: "scripted",
    runTurn: async (request) => (await turnCode()).playTurn(turns, request),
    preload: () => turnCode().then(ignore, ignore),
  };
}

function ignore(): void {}
