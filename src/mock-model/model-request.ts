/**
 * A model request reduced to what the mock-model needs to pick and render a turn, whatever the wire
 * protocol it came in.
 */

/** The wire protocols served: Anthropic Messages, OpenAI Responses, OpenAI Chat Completions. */
export type Protocol = "anthropic" | "responses" | "chat";

/** A tool the client offers the model. `custom` tools take a raw string input (Codex's apply_patch). */
export interface AdvertisedTool {
  name: string;
  custom: boolean;
}

export interface ModelRequest {
  protocol: Protocol;
  /** `body.model`, or "" when missing. */
  model: string;
  stream: boolean;
  /** The opening of the conversation: system prompt(s) and the messages before the first assistant turn. */
  opening: string;
  /** Every text of the request (system and every message), searched for the working directory. */
  texts: string[];
  /**
   * How many assistant turns the conversation has had: those it holds (consecutive assistant items count
   * once), or one past the latest turn tag among its tool calls when that is more (a client that
   * compacted its history, summarizing older turns, still names the turn it is at).
   */
  assistantTurns: number;
  tools: AdvertisedTool[];
}

/** Turn tags the server writes into the ids of tool calls it sends (`..._t3_...` for turn index 3). */
export function turnTagOf(id: unknown): number | undefined {
  if (typeof id !== "string") return undefined;
  const match = /_mock_t(\d+)_/.exec(id);
  return match ? Number(match[1]) : undefined;
}

/** One past the latest turn tag among `ids` (tool call ids the client sent back), or 0 when none is tagged. */
export function turnAfterTaggedCalls(ids: readonly unknown[]): number {
  let latest = -1;
  for (const id of ids) latest = Math.max(latest, turnTagOf(id) ?? -1);
  return latest + 1;
}

/** A tool call id carrying its turn index, so the parsers can tell parallel calls from later turns. */
export function taggedId(prefix: string, turnIndex: number): string {
  return `${prefix}_mock_t${turnIndex}_${Math.random().toString(36).slice(2, 10)}`;
}

/** Text of a message `content` that is a string or a list of parts with `text` (any part type). */
export function textOfContent(content: unknown): string[] {
  if (typeof content === "string") return [content];
  if (!Array.isArray(content)) return [];
  const texts: string[] = [];
  for (const part of content) {
    if (typeof part === "string") texts.push(part);
    else if (isRecord(part)) {
      if (typeof part.text === "string") texts.push(part.text);
      // Tool results nest their own content (Anthropic tool_result).
      if (part.content !== undefined) texts.push(...textOfContent(part.content));
    }
  }
  return texts;
}

export function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/**
 * Counts assistant turns in a sequence of conversation items. A turn starts at an assistant item
 * that follows a non-assistant one, except when it follows only outputs of its own tool calls and
 * carries the same turn tag (clients that interleave parallel calls with their outputs).
 */
export function countAssistantTurns<Item>(
  items: readonly Item[],
  kindOf: (item: Item) => "assistant" | "tool_output" | "other" | "ignore",
  tagOf: (item: Item) => number | undefined,
): number {
  let turns = 0;
  let previous: "assistant" | "tool_output" | "other" = "other";
  let currentTag: number | undefined;
  for (const item of items) {
    const kind = kindOf(item);
    if (kind === "ignore") continue;
    if (kind === "assistant") {
      const tag = tagOf(item);
      const sameTurn =
        previous === "assistant" || (previous === "tool_output" && tag !== undefined && tag === currentTag);
      if (!sameTurn) turns += 1;
      if (!sameTurn || tag !== undefined) currentTag = tag;
    }
    previous = kind;
  }
  return turns;
}
