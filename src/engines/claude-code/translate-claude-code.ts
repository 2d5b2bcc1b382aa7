/**
 * The pure half of the claude-code engine: folds the lines of `claude -p --output-format stream-json
 * --verbose --include-partial-messages` into engine events, a live cost, and the turn's result.
 *
 * Usage is kept per model message (keyed by message id): `message_start` stream events and `assistant`
 * lines carry the input and cache tokens, `message_delta` stream events the real output count (an
 * `assistant` line only ever shows the 1 output token of `message_start`). The live cost prices that
 * usage with pricing.ts; once the `result` line arrives its `total_cost_usd` is the turn's cost.
 */

import type { EngineEvent, TokenUsage } from "../../core/engine.ts";
import { costOf, type ModelPrice } from "../../core/pricing.ts";
import type { CliExit, CliTranslator, TranslatedResult } from "../agent-cli/cli-translator.ts";
import { extractJsonAnswer } from "../agent-cli/json-answer.ts";
import { accountLimit } from "../command-engine.ts";

interface MessageUsage {
  model: string;
  input: number;
  cacheCreation: number;
  cacheRead: number;
  output: number;
}

/** The final `result` line, as far as the translator reads it. */
interface ResultLine {
  subtype: string;
  isError: boolean;
  text?: string;
  costUsd?: number;
  usage?: TokenUsage;
  structured?: unknown;
  apiErrorStatus?: number;
  errors: string[];
}

export interface ClaudeCodeState {
  /** Usage per model message id, in arrival order. */
  messages: Record<string, MessageUsage>;
  /** The message a `message_delta` belongs to, per conversation (main: "", subagents: their tool id). */
  current: Record<string, string>;
  /** The text of the last assistant message that had any. */
  lastText: string;
  result?: ResultLine;
  /** The first line that is not stream-json, trimmed. */
  garbage?: string;
}

export interface ClaudeCodeTranslatorOptions {
  /** The role answers in JSON (verifier, replanner): the result carries `output`. */
  structured: boolean;
  /** The price table for the live cost (see pricing.ts). */
  prices: Record<string, ModelPrice>;
}

export function claudeCodeTranslator(options: ClaudeCodeTranslatorOptions): CliTranslator<ClaudeCodeState> {
  return {
    initial: () => ({ messages: {}, current: {}, lastText: "" }),
    line: (state, line) => foldLine(state, line, options.prices),
    costSoFar: (state) => state.result?.costUsd ?? liveCost(state, options.prices),
    finish: (state, exit) => finishTurn(state, exit, options),
  };
}

function foldLine(
  state: ClaudeCodeState,
  line: string,
  prices: Record<string, ModelPrice>,
): { state: ClaudeCodeState; events: EngineEvent[] } {
  let value: unknown;
  try {
    value = JSON.parse(line);
  } catch {
    return { state: state.garbage ? state : { ...state, garbage: line.trim().slice(0, 200) }, events: [] };
  }
  if (!isRecord(value))
    return { state: { ...state, garbage: state.garbage ?? line.slice(0, 200) }, events: [] };
  const thread = typeof value.parent_tool_use_id === "string" ? value.parent_tool_use_id : "";
  switch (value.type) {
    case "stream_event":
      return foldStreamEvent(state, thread, isRecord(value.event) ? value.event : {}, prices);
    case "assistant":
      return foldAssistant(state, isRecord(value.message) ? value.message : {}, thread);
    case "result":
      return { state: { ...state, result: readResult(value) }, events: [] };
    default:
      return { state, events: [] };
  }
}

function foldStreamEvent(
  state: ClaudeCodeState,
  thread: string,
  event: Record<string, unknown>,
  prices: Record<string, ModelPrice>,
): { state: ClaudeCodeState; events: EngineEvent[] } {
  if (event.type === "message_start" && isRecord(event.message)) {
    const id = String(event.message.id ?? "");
    const next = withUsage(state, id, event.message.model, event.message.usage);
    return usageUpdate({ ...next, current: { ...state.current, [thread]: id } }, prices);
  }
  if (event.type === "message_delta") {
    const id = state.current[thread];
    if (!id) return { state, events: [] };
    return usageUpdate(withUsage(state, id, undefined, event.usage), prices);
  }
  return { state, events: [] };
}

function foldAssistant(
  state: ClaudeCodeState,
  message: Record<string, unknown>,
  thread: string,
): { state: ClaudeCodeState; events: EngineEvent[] } {
  const id = String(message.id ?? "");
  let next = message.model === "<synthetic>" ? state : withUsage(state, id, message.model, message.usage);
  const events: EngineEvent[] = [];
  const texts: string[] = [];
  for (const block of Array.isArray(message.content) ? message.content : []) {
    if (!isRecord(block)) continue;
    if (block.type === "text" && typeof block.text === "string" && block.text.trim()) {
      texts.push(block.text);
      events.push({ type: "text", text: block.text });
    } else if (block.type === "tool_use" && typeof block.name === "string") {
      events.push({ type: "tool", name: block.name, detail: toolDetail(block.input) });
    }
  }
  // A subagent's words are not the agent's account of the turn.
  if (texts.length > 0 && !thread) next = { ...next, lastText: texts.join("\n") };
  return { state: next, events };
}

/** Merges a usage snapshot into a message's record: counts only grow (snapshots repeat, deltas add up). */
function withUsage(state: ClaudeCodeState, id: string, model: unknown, usage: unknown): ClaudeCodeState {
  if (!id || !isRecord(usage)) return state;
  const known = state.messages[id];
  const merged: MessageUsage = {
    model: typeof model === "string" && model ? model : (known?.model ?? ""),
    input: Math.max(known?.input ?? 0, count(usage.input_tokens)),
    cacheCreation: Math.max(known?.cacheCreation ?? 0, count(usage.cache_creation_input_tokens)),
    cacheRead: Math.max(known?.cacheRead ?? 0, count(usage.cache_read_input_tokens)),
    output: Math.max(known?.output ?? 0, count(usage.output_tokens)),
  };
  return { ...state, messages: { ...state.messages, [id]: merged } };
}

function usageUpdate(
  state: ClaudeCodeState,
  prices: Record<string, ModelPrice>,
): { state: ClaudeCodeState; events: EngineEvent[] } {
  return { state, events: [{ type: "usage", usage: liveUsage(state), costUsd: liveCost(state, prices) }] };
}

function liveUsage(state: ClaudeCodeState): TokenUsage {
  const usage: TokenUsage = { inputTokens: 0, outputTokens: 0, cachedInputTokens: 0 };
  for (const message of Object.values(state.messages)) {
    const one = tokenUsage(message);
    usage.inputTokens += one.inputTokens;
    usage.outputTokens += one.outputTokens;
    usage.cachedInputTokens = (usage.cachedInputTokens ?? 0) + (one.cachedInputTokens ?? 0);
  }
  return usage;
}

/** Dollars for the messages so far, priced per model; undefined while no message has a known price. */
function liveCost(state: ClaudeCodeState, prices: Record<string, ModelPrice>): number | undefined {
  let total: number | undefined;
  for (const message of Object.values(state.messages)) {
    const cost = costOf(message.model, tokenUsage(message), prices);
    if (cost !== undefined) total = (total ?? 0) + cost;
  }
  return total;
}

/** Cache writes are counted as input (Anthropic bills them a little above it). */
function tokenUsage(message: MessageUsage): TokenUsage {
  return {
    inputTokens: message.input + message.cacheCreation + message.cacheRead,
    outputTokens: message.output,
    cachedInputTokens: message.cacheRead,
  };
}

function readResult(line: Record<string, unknown>): ResultLine {
  return {
    subtype: String(line.subtype ?? ""),
    isError: line.is_error === true,
    text: typeof line.result === "string" ? line.result : undefined,
    costUsd: typeof line.total_cost_usd === "number" ? line.total_cost_usd : undefined,
    usage: resultUsage(line),
    structured: line.structured_output,
    apiErrorStatus: typeof line.api_error_status === "number" ? line.api_error_status : undefined,
    errors: Array.isArray(line.errors) ? line.errors.map(String) : [],
  };
}

/** The turn's tokens: `modelUsage` summed over models (its `usage` is all zeros after a budget stop). */
function resultUsage(line: Record<string, unknown>): TokenUsage | undefined {
  const models = isRecord(line.modelUsage) ? Object.values(line.modelUsage).filter(isRecord) : [];
  if (models.length > 0) {
    const usage: TokenUsage = { inputTokens: 0, outputTokens: 0, cachedInputTokens: 0 };
    for (const model of models) {
      const cached = count(model.cacheReadInputTokens);
      usage.inputTokens += count(model.inputTokens) + count(model.cacheCreationInputTokens) + cached;
      usage.outputTokens += count(model.outputTokens);
      usage.cachedInputTokens = (usage.cachedInputTokens ?? 0) + cached;
    }
    return usage;
  }
  if (!isRecord(line.usage)) return undefined;
  return tokenUsage({
    model: "",
    input: count(line.usage.input_tokens),
    cacheCreation: count(line.usage.cache_creation_input_tokens),
    cacheRead: count(line.usage.cache_read_input_tokens),
    output: count(line.usage.output_tokens),
  });
}

function finishTurn(
  state: ClaudeCodeState,
  exit: CliExit,
  options: ClaudeCodeTranslatorOptions,
): TranslatedResult {
  const { result } = state;
  const message = result?.text ?? state.lastText;
  const text = message.length > accountLimit ? message.slice(-accountLimit) : message;
  const spent = {
    usage: result?.usage ?? (Object.keys(state.messages).length > 0 ? liveUsage(state) : undefined),
    costUsd: result?.costUsd ?? liveCost(state, options.prices),
  };
  if (exit.timedOut) return { status: "timeout", text, ...spent };
  if (exit.cancelled) return { status: "cancelled", text, ...spent };
  if (exit.overBudget) return { status: "over_budget", text, ...spent };
  if (!result) {
    const why = state.garbage
      ? `printed output that is not stream-json: ${JSON.stringify(state.garbage.slice(0, 120))}`
      : `exited with code ${exit.exitCode} without a result${lastLine(exit.stderrTail)}`;
    return { status: "crashed", text, error: `claude ${why}`, ...spent };
  }
  if (result.subtype === "error_max_turns")
    return { status: "completed", text, hitTurnLimit: true, ...spent };
  if (result.subtype === "error_max_budget_usd") {
    return {
      status: "over_budget",
      text,
      error: `claude: ${result.errors[0] ?? "reached its budget"}`,
      ...spent,
    };
  }
  // An API or auth error ends with is_error: true even when subtype is "success".
  if (result.isError || result.subtype !== "success") {
    return { status: "crashed", text, error: resultError(result), ...spent };
  }
  if (!options.structured) return { status: "completed", text, ...spent };
  const output =
    result.structured !== undefined ? JSON.stringify(result.structured) : extractJsonAnswer(message);
  return { status: "completed", text, output, ...spent };
}

function resultError(result: ResultLine): string {
  const detail = oneLine(result.errors[0] ?? result.text ?? "") || result.subtype;
  const status =
    result.apiErrorStatus && !/api error/i.test(detail) ? `API error ${result.apiErrorStatus}: ` : "";
  return `claude: ${status}${detail}`.slice(0, 300);
}

function lastLine(text: string): string {
  const line = text
    .split("\n")
    .map((candidate) => candidate.trim())
    .filter(Boolean)
    .at(-1);
  return line ? `: ${line.slice(0, 200)}` : "";
}

function oneLine(text: string): string {
  return text.replace(/\s+/g, " ").trim();
}

/** What a tool call is about, in a few words: its path, command or pattern. */
function toolDetail(input: unknown): string | undefined {
  if (!isRecord(input)) return undefined;
  const detail = input.file_path ?? input.command ?? input.pattern ?? input.path ?? input.description;
  return typeof detail === "string" ? oneLine(detail).slice(0, 200) : undefined;
}

function count(value: unknown): number {
  return typeof value === "number" && Number.isFinite(value) && value > 0 ? value : 0;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
