/**
 * The pure half of the copilot engine: folds the lines of `copilot --output-format json` into engine
 * events and the turn's result, and reads the usage report of `--usage-output-file`.
 *
 * The JSONL stream has `assistant.message` (text and tool requests), `tool.execution_start|complete`,
 * `session.error` (an API or auth failure after the CLI's own retries) and last a `result` line
 * `{exitCode, usage: {premiumRequests, codeChanges}}`. It has no tokens and no dollars: the CLI keeps
 * its `assistant.usage` events out of it. So there is no live cost (`costSoFar` is always undefined),
 * and the cost stays unknown: tokens come from the usage report at the end, and Copilot bills premium
 * requests or AI credits, not tokens at an API price. Copilot has no turn limit of its own.
 */

import type { EngineEvent, TokenUsage } from "../../core/engine.ts";
import type { CliExit, CliTranslator, TranslatedResult } from "../agent-cli/cli-translator.ts";
import { extractJsonAnswer } from "../agent-cli/json-answer.ts";
import { accountLimit } from "../command-engine.ts";

export interface CopilotState {
  /** The text of the main agent's last assistant message that had any. */
  lastText: string;
  /** The message of a `session.error`: the turn failed. */
  sessionError?: string;
  result?: { exitCode: number; premiumRequests?: number };
  /** The first line that is not a JSON event, trimmed. */
  garbage?: string;
}

export interface CopilotTranslatorOptions {
  /** The role answers in JSON (verifier, replanner): the result carries `output`. */
  structured: boolean;
}

export function copilotTranslator(options: CopilotTranslatorOptions): CliTranslator<CopilotState> {
  return {
    initial: () => ({ lastText: "" }),
    line: foldLine,
    costSoFar: () => undefined,
    finish: (state, exit) => finishTurn(state, exit, options),
  };
}

function foldLine(state: CopilotState, line: string): { state: CopilotState; events: EngineEvent[] } {
  let value: unknown;
  try {
    value = JSON.parse(line);
  } catch {
    value = undefined;
  }
  if (!isRecord(value) || typeof value.type !== "string") {
    return { state: state.garbage ? state : { ...state, garbage: line.trim().slice(0, 200) }, events: [] };
  }
  const data = isRecord(value.data) ? value.data : {};
  switch (value.type) {
    case "assistant.message": {
      const text = typeof data.content === "string" ? data.content : "";
      if (!text.trim()) return { state, events: [] };
      // A subagent's words are not the agent's account of the turn.
      const next = data.parentToolCallId ? state : { ...state, lastText: text };
      return { state: next, events: [{ type: "text", text }] };
    }
    case "tool.execution_start":
      return {
        state,
        events: [{ type: "tool", name: String(data.toolName ?? "tool"), detail: toolDetail(data.arguments) }],
      };
    case "session.error":
      return {
        state: { ...state, sessionError: oneLine(String(data.message ?? data.errorType ?? "error")) },
        events: [],
      };
    case "result": {
      const usage = isRecord(value.usage) ? value.usage : {};
      const premiumRequests = typeof usage.premiumRequests === "number" ? usage.premiumRequests : undefined;
      const exitCode = typeof value.exitCode === "number" ? value.exitCode : -1;
      return { state: { ...state, result: { exitCode, premiumRequests } }, events: [] };
    }
    default:
      return { state, events: [] };
  }
}

function finishTurn(state: CopilotState, exit: CliExit, options: CopilotTranslatorOptions): TranslatedResult {
  const message = state.lastText;
  const text = message.length > accountLimit ? message.slice(-accountLimit) : message;
  if (exit.timedOut) return { status: "timeout", text };
  if (exit.cancelled) return { status: "cancelled", text };
  if (exit.overBudget) return { status: "over_budget", text };
  if (state.sessionError)
    return { status: "crashed", text, error: `copilot: ${state.sessionError}`.slice(0, 300) };
  if (!state.result) {
    const why = state.garbage
      ? `printed output that is not JSON: ${JSON.stringify(state.garbage.slice(0, 120))}`
      : `exited with code ${exit.exitCode} without a result${errorLine(exit.stderrTail)}`;
    return { status: "crashed", text, error: `copilot ${why}` };
  }
  if (state.result.exitCode !== 0 || exit.exitCode !== 0) {
    const code = state.result.exitCode !== 0 ? state.result.exitCode : exit.exitCode;
    return {
      status: "crashed",
      text,
      error: `copilot exited with code ${code}${errorLine(exit.stderrTail)}`,
    };
  }
  if (!options.structured) return { status: "completed", text };
  return { status: "completed", text, output: extractJsonAnswer(message) };
}

/** What the usage report of `--usage-output-file` says about the turn. */
export interface CopilotUsageReport {
  /** Tokens summed over the models; input includes the cached part, as in `TokenUsage`. */
  usage: TokenUsage;
  /** Premium requests charged to a GitHub Copilot plan (0 with a custom provider). */
  premiumRequests?: number;
}

/** Reads the usage report; undefined when it names no model (no call answered) or is not one. */
export function readUsageReport(text: string): CopilotUsageReport | undefined {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return undefined;
  }
  const models = isRecord(value) && isRecord(value.modelMetrics) ? Object.values(value.modelMetrics) : [];
  if (!isRecord(value) || models.length === 0) return undefined;
  const usage: TokenUsage = { inputTokens: 0, outputTokens: 0, cachedInputTokens: 0 };
  for (const model of models) {
    const tokens = isRecord(model) && isRecord(model.usage) ? model.usage : {};
    usage.inputTokens += count(tokens.inputTokens);
    usage.outputTokens += count(tokens.outputTokens);
    usage.cachedInputTokens = (usage.cachedInputTokens ?? 0) + count(tokens.cacheReadTokens);
  }
  const premium = value.totalPremiumRequestCost;
  return { usage, premiumRequests: typeof premium === "number" ? premium : undefined };
}

/** The line of stderr that says what went wrong: the first naming an error, else the last. */
function errorLine(stderr: string): string {
  const lines = stderr
    .split("\n")
    .map((line) => line.trim())
    .filter(Boolean);
  const line = lines.find((candidate) => /error/i.test(candidate)) ?? lines.at(-1);
  return line ? `: ${line.slice(0, 200)}` : "";
}

/** What a tool call is about, in a few words: its command, path or the files of a patch. */
function toolDetail(input: unknown): string | undefined {
  if (typeof input === "string") {
    const files = [...input.matchAll(/^\*\*\* (?:Add|Update|Delete) File: (.+)$/gm)].map((match) => match[1]);
    return (files.length > 0 ? files.join(", ") : oneLine(input)).slice(0, 200);
  }
  if (!isRecord(input)) return undefined;
  const detail = input.command ?? input.path ?? input.pattern ?? input.description;
  return typeof detail === "string" ? oneLine(detail).slice(0, 200) : undefined;
}

function oneLine(text: string): string {
  return text.replace(/\s+/g, " ").trim();
}

function count(value: unknown): number {
  return typeof value === "number" && Number.isFinite(value) && value > 0 ? value : 0;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
