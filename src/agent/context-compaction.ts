/**
 * Context management: before each model call, a conversation nearing the model's window is made smaller,
 * cheapest first. (1) Old tool outputs, and long arguments of old tool calls, are shortened (no model
 * call). (2) If that is not enough, the older turns are summarized by the model into one message; the
 * task prompt and the most recent turns stay verbatim. Each step is a `context_compacted` event.
 * Compaction happens rarely and in large steps, so the unchanged prefix between compactions keeps
 * benefiting from the provider's prompt cache.
 */
import type { AssistantModelMessage, ModelMessage, ToolModelMessage } from "ai";
import type { AgentEvent } from "./agent-types.ts";
import { summaryMarker, summaryMessage } from "./prompts/summary-prompt.ts";
import { truncateOutput } from "./truncate-output.ts";

/** Compact when the request passes this share of the room for input. */
export const compactAt = 0.8;
/** Stop after shortening when the request is within this share; else summarize. */
const settleAt = 0.6;
/** The share of the room the verbatim recent turns may take after a summary. */
const recentShare = 0.3;
/** Turns whose tool outputs are never shortened. */
const protectedTurns = 2;
/** Old tool outputs and arguments longer than this (characters) are shortened. */
const shortenAbove = 800;
const shortenedLimits = { maxChars: 400, maxLines: 10 };

export interface CompactionInput {
  messages: ModelMessage[];
  /** Estimated input tokens of a request carrying `messages` (system prompt and tools included). */
  requestTokens(messages: ModelMessage[]): number;
  /** Estimated tokens of some messages alone. */
  messageTokens(messages: ModelMessage[]): number;
  /** Room for input: the window less the tokens kept for the answer. */
  room: number;
  /** Asks the model for a summary of `transcript`; undefined when that call failed. */
  summarize(transcript: string): Promise<string | undefined>;
  onEvent?: (event: AgentEvent) => void;
}

/** The conversation to send: `messages` itself when it fits comfortably, else a compacted copy. */
export async function compactContext(input: CompactionInput): Promise<ModelMessage[]> {
  const { room } = input;
  let messages = input.messages;
  const before = input.requestTokens(messages);
  if (before <= room * compactAt) return messages;

  const shortened = shortenOldToolData(messages, protectedTurns);
  if (shortened !== messages) {
    messages = shortened;
    announce(input, "tool_outputs_shortened", before, input.requestTokens(messages));
  }
  const afterShortening = input.requestTokens(messages);
  if (afterShortening <= room * settleAt) return messages;

  const split = splitOlderTurns(messages, room * recentShare, input.messageTokens);
  if (!split) return messages;
  const transcript = truncateOutput(
    renderTranscript(split.older),
    { maxChars: room * 2, maxLines: 100_000 },
    "head",
    () => "Later turns follow.",
  );
  const summary =
    (await input.summarize(transcript)) ??
    truncateOutput(
      transcript,
      { maxChars: room * 0.4, maxLines: 2000 },
      "tail",
      () => "Earlier turns are lost.",
    );
  messages = [split.head, { role: "user", content: summaryMessage(summary, split.turns) }, ...split.recent];
  // A recent turn that alone overflows the room loses its long outputs too.
  if (input.requestTokens(messages) > room) messages = shortenOldToolData(messages, 0);
  announce(input, "turns_summarized", afterShortening, input.requestTokens(messages));
  return messages;
}

function announce(
  input: CompactionInput,
  method: "tool_outputs_shortened" | "turns_summarized",
  tokensBefore: number,
  tokensAfter: number,
) {
  input.onEvent?.({ type: "context_compacted", method, tokensBefore, tokensAfter });
}

/** Index of the first message of each turn (an assistant message), after the task prompt. */
function turnStarts(messages: ModelMessage[]): number[] {
  return messages.flatMap((message, index) => (index > 0 && message.role === "assistant" ? [index] : []));
}

/**
 * A copy with the tool outputs and long tool-call arguments of every turn but the last `keep` shortened,
 * or `messages` itself when nothing was long.
 */
export function shortenOldToolData(messages: ModelMessage[], keep: number): ModelMessage[] {
  const starts = turnStarts(messages);
  const end = keep > 0 ? (starts.at(-keep) ?? 0) : messages.length;
  let changed = false;
  const shorten = (text: string) => {
    if (text.length <= shortenAbove) return text;
    changed = true;
    return truncateOutput(
      text,
      shortenedLimits,
      "head",
      () => "Shortened to save context; call the tool again to see it in full.",
    );
  };
  const copy = messages.map((message, index) => {
    if (index >= end) return message;
    if (message.role === "tool") return shortenResults(message, shorten);
    if (message.role === "assistant") return shortenCalls(message, shorten);
    return message;
  });
  return changed ? copy : messages;
}

function shortenResults(message: ToolModelMessage, shorten: (text: string) => string): ToolModelMessage {
  return {
    ...message,
    content: message.content.map((part) => {
      if (part.type !== "tool-result") return part;
      const output = part.output;
      if (output.type !== "text" && output.type !== "error-text") return part;
      const value = shorten(output.value);
      return value === output.value ? part : { ...part, output: { ...output, value } };
    }),
  };
}

function shortenCalls(
  message: AssistantModelMessage,
  shorten: (text: string) => string,
): AssistantModelMessage {
  if (typeof message.content === "string") return message;
  return {
    ...message,
    content: message.content.map((part) => {
      if (part.type !== "tool-call" || typeof part.input !== "object" || part.input === null) return part;
      const entries = Object.entries(part.input as Record<string, unknown>);
      const input = Object.fromEntries(
        entries.map(([key, value]) => [key, typeof value === "string" ? shorten(value) : value]),
      );
      return entries.some(([key, value]) => input[key] !== value) ? { ...part, input } : part;
    }),
  };
}

interface Split {
  head: ModelMessage;
  older: ModelMessage[];
  recent: ModelMessage[];
  /** Model turns in `older`. */
  turns: number;
}

/**
 * The task prompt, the turns to summarize, and the most recent turns that fit in `recentTokens` (always
 * at least the last one). Undefined when no turn is old enough to summarize.
 */
function splitOlderTurns(
  messages: ModelMessage[],
  recentTokens: number,
  tokensOf: (messages: ModelMessage[]) => number,
): Split | undefined {
  const starts = turnStarts(messages);
  if (starts.length < 2) return undefined;
  let recentStart = starts[starts.length - 1];
  for (let index = starts.length - 2; index >= 1; index--) {
    if (tokensOf(messages.slice(starts[index])) > recentTokens) break;
    recentStart = starts[index];
  }
  const older = messages.slice(1, recentStart);
  const turns = older.filter((message) => message.role === "assistant").length;
  if (turns === 0) return undefined;
  return { head: messages[0], older, recent: messages.slice(recentStart), turns };
}

/** The older turns as plain text for the summary call: who said what, tools called and what they returned. */
export function renderTranscript(messages: ModelMessage[]): string {
  const cap = (text: string, maxChars: number) =>
    truncateOutput(text, { maxChars, maxLines: 200 }, "head", () => "The rest is not needed here.");
  const blocks: string[] = [];
  for (const message of messages) {
    if (message.role === "user") {
      const text = typeof message.content === "string" ? message.content : textOf(message.content);
      blocks.push(text.startsWith(summaryMarker) ? `EARLIER SUMMARY:\n${text}` : `USER:\n${text}`);
    } else if (message.role === "assistant") {
      if (typeof message.content === "string") blocks.push(`ASSISTANT:\n${message.content}`);
      else
        for (const part of message.content) {
          if (part.type === "text" && part.text.trim()) blocks.push(`ASSISTANT:\n${part.text}`);
          if (part.type === "tool-call")
            blocks.push(`TOOL CALL ${part.toolName} ${cap(JSON.stringify(part.input), 600)}`);
        }
    } else if (message.role === "tool") {
      for (const part of message.content) {
        if (part.type !== "tool-result") continue;
        const output = part.output;
        const value =
          output.type === "text" || output.type === "error-text" ? output.value : JSON.stringify(output);
        blocks.push(`TOOL RESULT ${part.toolName}:\n${cap(value, 1500)}`);
      }
    }
  }
  return blocks.join("\n\n");
}

function textOf(parts: readonly unknown[]): string {
  return parts
    .map((part) => (typeof part === "object" && part !== null && "text" in part ? String(part.text) : ""))
    .join("\n");
}
