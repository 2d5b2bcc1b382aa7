/**
 * Replaying output recorded from a real agent CLI (test/fixtures/engines/<engine>/) through its
 * translator, the way the process half feeds it, for the translator tests.
 */
import { readFileSync } from "node:fs";
import type { EngineEvent } from "../../src/core/engine.ts";
import type { CliExit, CliTranslator, TranslatedResult } from "../../src/engines/agent-cli/cli-translator.ts";

/** A recorded file of `engine`'s CLI, as text. */
export function recording(engine: string, file: string): string {
  return readFileSync(new URL(`../fixtures/engines/${engine}/${file}`, import.meta.url), "utf8");
}

/** The lines of the recorded JSONL output `<name>.jsonl` of `engine`'s CLI, blank lines left out. */
export function recordedLines(engine: string, name: string): string[] {
  return recording(engine, `${name}.jsonl`)
    .split("\n")
    .filter((line) => line.trim() !== "");
}

/** How the CLI process ended: with `exitCode`, neither timed out, cancelled nor over budget unless `fields` say so. */
export function exited(exitCode: number | null, fields: Partial<CliExit> = {}): CliExit {
  return { exitCode, timedOut: false, cancelled: false, overBudget: false, stderrTail: "", ...fields };
}

export interface Replay<State> {
  events: EngineEvent[];
  /** The live cost after each line, as the watchdog sees it. */
  costs: (number | undefined)[];
  state: State;
  /** The turn's result once the process ended as `exit` said. */
  finish(exit: CliExit): TranslatedResult;
}

/** Folds `lines` one by one, skipping blank ones as the process half does. */
export function replay<State>(translator: CliTranslator<State>, lines: string[]): Replay<State> {
  let state = translator.initial();
  const events: EngineEvent[] = [];
  const costs: (number | undefined)[] = [];
  for (const line of lines) {
    if (!line.trim()) continue;
    const folded = translator.line(state, line);
    state = folded.state;
    events.push(...folded.events);
    costs.push(translator.costSoFar(state));
  }
  return { events, costs, state, finish: (exit) => translator.finish(state, exit) };
}
