/**
 * The engine contract: one turn of a maker, verifier or replanner. Every engine (command, scripted,
 * and later claude-code, codex, copilot, builtin) implements `runTurn`; the controller knows nothing
 * else about it. A turn never throws for a runtime failure: it returns a status.
 */

export type Role = "maker" | "verifier" | "replanner" | "reviewer";

/** Everything an engine needs for one turn. */
export interface TurnRequest {
  role: Role;
  /** The worktree the turn runs in (the maker's own, or a disposable one for read-only roles). */
  cwd: string;
  /** The brief or prompt, verbatim. */
  prompt: string;
  /** True for the verifier and replanner: the engine must not edit files (and cannot, where it can enforce it). */
  readOnly: boolean;
  /** A JSON Schema the final answer must satisfy, for engines that can enforce one. */
  outputSchema?: unknown;
  /** The structured context (loop, iteration, SHAs, gate results) as the command engine publishes it. */
  context: Record<string, unknown>;
  /** 1-based count of this role's turns so far, the same on a re-run after a crash (scripted engines key on it). */
  turnNumber: number;
  /** Wall-clock limit in ms (0 = none); the engine stops the turn and reports `timeout`. */
  wallClockMs: number;
  /** Dollar limit for the turn (0 = none), where the engine can watch its own cost. */
  maxCostUsd: number;
  /** Folder for this turn's files (brief, context, transcript, logs). */
  turnDirectory: string;
  /** The controller run and the step: every process the turn starts is tagged with them, for the survivor sweep. */
  runId: string;
  stepId: string;
  /** Extra environment for the turn's processes. */
  env?: Record<string, string>;
  /** Aborts the turn (cancel); the engine kills what it started and reports `cancelled`. */
  signal: AbortSignal;
  /** Live events while the turn runs (text, tool calls, usage). */
  onEvent?: (event: EngineEvent) => void;
}

/** `over_budget`: the cost watchdog stopped the turn because it crossed `maxCostUsd`. */
export type TurnStatus = "completed" | "timeout" | "cancelled" | "crashed" | "over_budget";

export interface TokenUsage {
  inputTokens: number;
  outputTokens: number;
  cachedInputTokens?: number;
}

/** What a turn produced. `structured` is the parsed JSON answer of a verifier or replanner. */
export interface TurnResult {
  status: TurnStatus;
  /** The engine's own account: for the maker, the last 2 KiB of what it said. */
  text: string;
  /** The raw final answer as printed, for roles that must answer in JSON. */
  output?: string;
  exitCode?: number | null;
  /** Why a `crashed` turn crashed, in one line. */
  error?: string;
  usage?: TokenUsage;
  /** Dollars spent, when known; undefined means the engine cannot tell. */
  costUsd?: number;
  transcriptPath?: string;
}

export type EngineEvent =
  | { type: "text"; text: string }
  | { type: "tool"; name: string; detail?: string }
  /** `premiumRequests`: what a GitHub Copilot plan was charged (Copilot reports no dollars). */
  | { type: "usage"; usage: TokenUsage; costUsd?: number; premiumRequests?: number };

export interface Engine {
  readonly name: string;
  /** Engines of one family share a vendor or model; the verifier is picked from another family. */
  readonly family: string;
  runTurn(request: TurnRequest): Promise<TurnResult>;
  /**
   * Loads what a turn runs on (an engine's turn code loads at its first turn otherwise), for a caller
   * that can do it while it waits on something else. Never rejects.
   */
  preload?(): Promise<void>;
}
