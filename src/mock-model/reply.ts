import { type ModelRequest, taggedId } from "./model-request.ts";
import type { Turn } from "./script.ts";

/** One piece of an assistant answer, in the order it is sent. */
export type ReplyBlock =
  | { type: "text"; text: string }
  /** `input` is a string only for `custom` tools (raw input); otherwise a JSON object. */
  | { type: "tool"; id: string; name: string; input: Record<string, unknown> | string; custom: boolean };

/** Token counts as the server reports them; `input` excludes `cacheRead`. */
export interface ReplyUsage {
  input: number;
  output: number;
  cacheRead: number;
}

/** An assistant answer ready to be rendered in any protocol. */
export interface Reply {
  blocks: ReplyBlock[];
  /** `tool_use` when the answer holds a tool call. */
  stopReason: "end_turn" | "tool_use";
  usage: ReplyUsage;
  /** Things the script author should know (an unknown tool name, a `{{cwd}}` with no directory found). */
  notes: string[];
}

/** The tool Claude Code adds for `--json-schema`; a scripted structured answer is a call of it. */
export const structuredOutputTool = "StructuredOutput";

/**
 * Builds the answer for `turn` (its text, tool calls or json; not its error, delay or hang) at turn
 * `index`, with `{{cwd}}` replaced by `cwd` everywhere. `requestSize` (characters) sets the default
 * input token count.
 */
export function buildReply(
  turn: Turn,
  index: number,
  request: ModelRequest,
  cwd: string | undefined,
  requestSize: number,
): Reply {
  const notes: string[] = [];
  const substitute = <Value>(value: Value): Value => {
    if (cwd === undefined) {
      if (JSON.stringify(value ?? null).includes("{{cwd}}"))
        pushOnce(notes, "no working directory found in the request; {{cwd}} left as is");
      return value;
    }
    return replaceCwd(value, cwd) as Value;
  };
  const blocks: ReplyBlock[] = [];
  if (turn.text !== undefined) blocks.push({ type: "text", text: substitute(turn.text) });
  for (const call of turn.tools ?? []) {
    const advertised = request.tools.find((tool) => tool.name === call.name);
    if (request.tools.length > 0 && !advertised)
      notes.push(
        `tool ${call.name} is not one the client offers (${request.tools.map((tool) => tool.name).join(", ")})`,
      );
    blocks.push(toolBlock(call.name, substitute(call.input), advertised?.custom ?? false, index, request));
  }
  if (turn.json !== undefined) {
    const value = substitute(turn.json);
    const structured =
      request.protocol === "anthropic" && request.tools.some((tool) => tool.name === structuredOutputTool);
    if (structured && isObject(value))
      blocks.push(toolBlock(structuredOutputTool, value, false, index, request));
    else blocks.push({ type: "text", text: JSON.stringify(value, null, 2) });
  }
  const outputSize = blocks.reduce(
    (size, block) => size + (block.type === "text" ? block.text.length : JSON.stringify(block.input).length),
    0,
  );
  return {
    blocks,
    stopReason: blocks.some((block) => block.type === "tool") ? "tool_use" : "end_turn",
    usage: {
      input: turn.usage?.input ?? Math.ceil(requestSize / 4),
      output: turn.usage?.output ?? Math.max(1, Math.ceil(outputSize / 4)),
      cacheRead: turn.usage?.cacheRead ?? 0,
    },
    notes,
  };
}

/** A plain text answer (the script ran out, no conversation matched) with default usage. */
export function textReply(text: string, requestSize: number): Reply {
  return {
    blocks: [{ type: "text", text }],
    stopReason: "end_turn",
    usage: {
      input: Math.ceil(requestSize / 4),
      output: Math.max(1, Math.ceil(text.length / 4)),
      cacheRead: 0,
    },
    notes: [],
  };
}

function toolBlock(
  name: string,
  input: Record<string, unknown> | string,
  custom: boolean,
  index: number,
  request: ModelRequest,
): ReplyBlock {
  const prefix = request.protocol === "anthropic" ? "toolu" : "call";
  // A custom tool takes raw text; a function tool takes a JSON object (a string input becomes `{input}`).
  const shaped = custom
    ? typeof input === "string"
      ? input
      : JSON.stringify(input)
    : typeof input === "string"
      ? { input }
      : input;
  return { type: "tool", id: taggedId(prefix, index), name, input: shaped, custom };
}

function replaceCwd(value: unknown, cwd: string): unknown {
  if (typeof value === "string") return value.replaceAll("{{cwd}}", cwd);
  if (Array.isArray(value)) return value.map((item) => replaceCwd(item, cwd));
  if (isObject(value))
    return Object.fromEntries(Object.entries(value).map(([key, item]) => [key, replaceCwd(item, cwd)]));
  return value;
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function pushOnce(list: string[], text: string) {
  if (!list.includes(text)) list.push(text);
}
