/**
 * The pure half of an agent-CLI engine: a translator folds the CLI's output lines (JSONL) into engine
 * events and, at the end, a turn result. It does no IO, so it is tested against recorded real output.
 */
import type { EngineEvent, TokenUsage, TurnStatus } from "../../core/engine.ts";

/** How the CLI process ended, as the process half saw it. */
export interface CliExit {
  exitCode: number | null;
  timedOut: boolean;
  cancelled: boolean;
  /** The watchdog stopped the turn because its cost crossed the cap. */
  overBudget: boolean;
  /** The last lines of stderr, for error messages. */
  stderrTail: string;
}

/** What a translator concludes from a finished turn. */
export interface TranslatedResult {
  status: TurnStatus;
  /** The agent's final message (the maker's account, the verifier's answer). */
  text: string;
  /** The structured answer, as JSON text, when the CLI delivered one (schema option or fenced block). */
  output?: string;
  error?: string;
  usage?: TokenUsage;
  /** Dollars as the CLI reported them, or priced from tokens; undefined when unknown. */
  costUsd?: number;
  /** True when the CLI stopped at its own turn limit: a finished attempt, not an error. */
  hitTurnLimit?: boolean;
}

export interface CliTranslator<State> {
  initial(): State;
  /** Folds one line of the CLI's stdout (without its newline). Never throws: garbage is recorded in the state. */
  line(state: State, line: string): { state: State; events: EngineEvent[] };
  /** The turn's cost so far, for the live watchdog; undefined when the CLI has reported nothing yet. */
  costSoFar(state: State): number | undefined;
  /**
   * How many notices in a row the CLI has printed that it is retrying to reach its model API (0 after any
   * other output), and the latest one's text. Absent for CLIs that give up on their own.
   */
  reconnects?(state: State): number;
  lastReconnect?(state: State): string | undefined;
  /** The result of the turn from the final state and how the process ended. */
  finish(state: State, exit: CliExit): TranslatedResult;
}
