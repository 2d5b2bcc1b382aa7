/**
 * The built-in agent's public shapes: what a run is configured with, what it streams while it runs, and
 * how it ends. Every limit is a number where 0 means none.
 */
import type { ModelMessage } from "ai";
import type { EngineEvent, TokenUsage } from "../core/engine.ts";
import type { AgentModel } from "./providers.ts";
import type { AgentTool } from "./tools/tool-contract.ts";

/** Why a run ended: a closed set, each a value the caller maps to its own outcome. */
export type EndReason = "completed" | "max_turns" | "max_budget" | "timeout" | "aborted" | "error";

export interface AgentConfiguration {
  model: AgentModel;
  /** The task, verbatim: the first user message. */
  prompt: string;
  /** The system prompt (see prompts/system-prompt.ts). */
  system: string;
  tools: AgentTool[];
  /** What the tools work in: the worktree, and folders they may read beside it. */
  workspace: Workspace;
  /** Model calls at most (0 = none). */
  maxTurns: number;
  /** Dollars at most, priced from usage (0 = none; unenforceable for a model without a price). */
  maxCostUsd: number;
  /** Wall clock in ms for the whole run (0 = none); model calls and tools are stopped when it passes. */
  timeoutMs: number;
  /** A JSON Schema: the run's answer is a call of the `StructuredOutput` tool with it, or JSON in the final text. */
  answerSchema?: unknown;
  /** Aborting ends the run `aborted`, stopping the model call and every running tool. */
  signal?: AbortSignal;
  onEvent?: (event: AgentEvent) => void;
  /** Tags every process a tool starts (the loop's survivor sweep finds them by it). */
  runId: string;
  stepId: string;
  /** Environment for the commands tools run, over the process's own. */
  env?: Record<string, string>;
  /** Retries of a model call answered 429 or 529 (default 4). */
  maxRetries?: number;
}

/** Where tools may act: `root` is the only place they write; they may also read `readable` and `scratch`. */
export interface Workspace {
  root: string;
  /** Folders or single files outside `root` that tools may read (a verifier's gate logs and diff). */
  readable: string[];
  /** Where tools keep what they cut from long outputs (a bash log), readable by `read`. */
  scratch: string;
}

/**
 * Events streamed while a run goes: the engine events (`text` deltas, `tool` when a call starts, `usage`
 * after each model call) and the agent's own, named noun_verb in the past tense.
 */
export type AgentEvent =
  | EngineEvent
  | { type: "tool_ended"; name: string; ok: boolean; detail?: string }
  | {
      type: "context_compacted";
      method: "tool_outputs_shortened" | "turns_summarized";
      tokensBefore: number;
      tokensAfter: number;
    }
  | { type: "model_retried"; status: number; delayMs: number; attempt: number };

export interface AgentResult {
  endReason: EndReason;
  /** The model's last text (its final answer when completed). */
  text: string;
  /** The `StructuredOutput` call's arguments as JSON text, when the model answered with it. */
  answer?: string;
  /** Why the run ended in `error`, in one line. */
  error?: string;
  /** Summed over every model call, compaction summaries included. */
  usage: TokenUsage;
  /** Dollars, when the model has a price. */
  costUsd?: number;
  /** Model calls made for the conversation (summaries not counted). */
  turns: number;
  /** The conversation as it stands at the end (after any compaction). */
  messages: ModelMessage[];
}
