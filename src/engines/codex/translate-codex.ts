/**
 * The pure half of the codex engine: folds `codex exec --json` lines into engine events and a turn
 * result. The stream is `thread.started`, `turn.started`, `item.started|updated|completed` (items
 * `agent_message`, `reasoning`, `command_execution`, `file_change`, `mcp_tool_call`, `web_search`,
 * `todo_list`, `error`), top-level `error` events (also "Reconnecting..." notices while codex retries),
 * and last `turn.completed{usage}` or `turn.failed{error}`. Codex reports tokens only, at the end of the
 * turn; dollars come from the price table. It has no turn limit of its own in `exec`.
 */

import type { EngineEvent, TokenUsage } from "../../core/engine.ts";
import { costOf, type ModelPrice } from "../../core/pricing.ts";
import type { CliExit, CliTranslator, TranslatedResult } from "../agent-cli/cli-translator.ts";
import { extractJsonAnswer } from "../agent-cli/json-answer.ts";
import { withoutNulls } from "./strict-output-schema.ts";

export interface CodexTranslatorOptions {
  /** The model the turn runs on, for pricing; undefined when unknown (the cost stays unknown). */
  model?: string;
  /** The price table in force (see pricing.ts). */
  prices: Record<string, ModelPrice>;
  /** The role answers in JSON: put the JSON of the last message into `output`. */
  structured: boolean;
  /** The schema was made strict (see strict-output-schema.ts): drop the nulls standing for left-out fields. */
  dropNulls?: boolean;
}

export interface CodexState {
  /** The latest agent message: the maker's account, the verifier's answer. */
  lastMessage?: string;
  usage?: TokenUsage;
  /** Set by `turn.completed`: the turn finished normally. */
  completed: boolean;
  /** The message of `turn.failed`. */
  failure?: string;
  /** The latest `error` event or item, reported when the turn never completes. */
  lastError?: string;
  /** "Reconnecting..." notices in a row (codex cannot reach its API), reset by any other event. */
  reconnects: number;
  /** The latest of those notices. */
  lastReconnect?: string;
  /** The first line that was not a codex event, and how many there were. */
  garbage?: string;
  garbageLines: number;
}

export function createCodexTranslator(options: CodexTranslatorOptions): CliTranslator<CodexState> {
  const priced = (state: CodexState) =>
    state.usage && options.model ? costOf(options.model, state.usage, options.prices) : undefined;
  return {
    initial: () => ({ completed: false, garbageLines: 0, reconnects: 0 }),
    line(state, line) {
      const event = parseEvent(line);
      if (!event) {
        return {
          state: {
            ...state,
            garbage: state.garbage ?? line.slice(0, 200),
            garbageLines: state.garbageLines + 1,
          },
          events: [],
        };
      }
      const reconnect = isReconnectNotice(event);
      const folded = foldEvent(state, event, priced);
      return {
        ...folded,
        state: {
          ...folded.state,
          reconnects: reconnect ? state.reconnects + 1 : 0,
          lastReconnect: reconnect ? messageOf(event) : state.lastReconnect,
        },
      };
    },
    costSoFar: priced,
    reconnects: (state) => state.reconnects,
    lastReconnect: (state) => state.lastReconnect,
    finish: (state, exit) => finishTurn(state, exit, options, priced(state)),
  };
}

type CodexEvent = Record<string, unknown> & { type: string };
type Item = Record<string, unknown> & { type?: unknown };

function foldEvent(
  state: CodexState,
  event: CodexEvent,
  priced: (state: CodexState) => number | undefined,
): { state: CodexState; events: EngineEvent[] } {
  switch (event.type) {
    case "item.started":
    case "item.completed": {
      const item = isObject(event.item) ? (event.item as Item) : {};
      return foldItem(state, item, event.type === "item.completed");
    }
    case "turn.completed": {
      const usage = usageOf(event.usage);
      const total = addUsage(state.usage, usage);
      const next = { ...state, usage: total, completed: true };
      return { state: next, events: [{ type: "usage", usage: total, costUsd: priced(next) }] };
    }
    case "turn.failed":
      return {
        state: { ...state, failure: messageOf(event.error) ?? "codex reported turn.failed" },
        events: [],
      };
    case "error":
      return { state: { ...state, lastError: messageOf(event) ?? state.lastError }, events: [] };
    default:
      return { state, events: [] };
  }
}

/** Tools are announced when they start; messages when they complete. */
function foldItem(
  state: CodexState,
  item: Item,
  completed: boolean,
): { state: CodexState; events: EngineEvent[] } {
  if (item.type === "agent_message" && completed && typeof item.text === "string") {
    return { state: { ...state, lastMessage: item.text }, events: [{ type: "text", text: item.text }] };
  }
  if (item.type === "error" && completed) {
    return { state: { ...state, lastError: messageOf(item) ?? state.lastError }, events: [] };
  }
  if (completed) return { state, events: [] };
  const tool = toolOf(item);
  return { state, events: tool ? [{ type: "tool", ...tool }] : [] };
}

function toolOf(item: Item): { name: string; detail?: string } | undefined {
  switch (item.type) {
    case "command_execution":
      return { name: "exec_command", detail: typeof item.command === "string" ? item.command : undefined };
    case "file_change": {
      const changes = Array.isArray(item.changes) ? item.changes.filter(isObject) : [];
      return {
        name: "apply_patch",
        detail: changes.map((change) => `${change.kind} ${change.path}`).join(", "),
      };
    }
    case "mcp_tool_call":
      return { name: `${String(item.server ?? "mcp")}.${String(item.tool ?? "tool")}` };
    case "web_search":
      return { name: "web_search", detail: typeof item.query === "string" ? item.query : undefined };
    default:
      return undefined;
  }
}

function finishTurn(
  state: CodexState,
  exit: CliExit,
  options: CodexTranslatorOptions,
  costUsd: number | undefined,
): TranslatedResult {
  const base = { text: state.lastMessage ?? "", usage: state.usage, costUsd };
  if (exit.overBudget) return { ...base, status: "over_budget" };
  if (exit.cancelled) return { ...base, status: "cancelled" };
  if (exit.timedOut) return { ...base, status: "timeout" };
  if (state.failure) return { ...base, status: "crashed", error: oneLine(state.failure) };
  if (!state.completed) return { ...base, status: "crashed", error: whyUnfinished(state, exit) };
  if (!options.structured) return { ...base, status: "completed" };
  return { ...base, status: "completed", output: jsonOutput(state.lastMessage ?? "", options.dropNulls) };
}

/** The JSON answer of the last message, nulls dropped when the schema was made strict. */
function jsonOutput(message: string, dropNulls = false): string | undefined {
  const answer = extractJsonAnswer(message);
  if (answer === undefined || !dropNulls) return answer;
  return JSON.stringify(withoutNulls(JSON.parse(answer)));
}

function whyUnfinished(state: CodexState, exit: CliExit): string {
  const how = exit.exitCode === null ? "was killed" : `exited with code ${exit.exitCode}`;
  if (state.lastError) return oneLine(`codex ${how} before finishing its turn: ${state.lastError}`);
  if (state.garbage)
    return oneLine(
      `codex ${how} without finishing its turn; it printed ${state.garbageLines} line(s) that are not codex events, first: ${state.garbage}`,
    );
  const complaint = lastComplaint(exit.stderrTail);
  if (complaint) return oneLine(`codex ${how}: ${complaint}`);
  return `codex ${how} without finishing its turn`;
}

/** The last line of the output tail (stdout and stderr) that is neither a JSON event nor codex's routine warning. */
function lastComplaint(tail: string): string | undefined {
  const lines = tail
    .split("\n")
    .map((line) => line.trim())
    .filter((line) => line && !line.startsWith("{") && !line.startsWith("WARNING: proceeding"));
  return lines.findLast((line) => /^error\b/i.test(line)) ?? lines.at(-1);
}

/** Codex's notice that it is retrying to reach the model API: `{"type":"error","message":"Reconnecting... ..."}`. */
function isReconnectNotice(event: CodexEvent): boolean {
  return event.type === "error" && /^Reconnecting\b/.test(messageOf(event) ?? "");
}

function parseEvent(line: string): CodexEvent | undefined {
  try {
    const value: unknown = JSON.parse(line);
    return isObject(value) && typeof value.type === "string" ? (value as CodexEvent) : undefined;
  } catch {
    return undefined;
  }
}

function usageOf(value: unknown): TokenUsage {
  const usage = isObject(value) ? value : {};
  const count = (key: string) => (typeof usage[key] === "number" ? (usage[key] as number) : 0);
  return {
    inputTokens: count("input_tokens"),
    cachedInputTokens: count("cached_input_tokens"),
    outputTokens: count("output_tokens"),
  };
}

function addUsage(total: TokenUsage | undefined, usage: TokenUsage): TokenUsage {
  if (!total) return usage;
  return {
    inputTokens: total.inputTokens + usage.inputTokens,
    cachedInputTokens: (total.cachedInputTokens ?? 0) + (usage.cachedInputTokens ?? 0),
    outputTokens: total.outputTokens + usage.outputTokens,
  };
}

function messageOf(value: unknown): string | undefined {
  return isObject(value) && typeof value.message === "string" ? value.message : undefined;
}

function oneLine(text: string): string {
  const line = text.replace(/\s+/g, " ").trim();
  return line.length > 400 ? `${line.slice(0, 400)}...` : line;
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
