import { z } from "zod";

/**
 * The mock-model script: the one format every scripted model conversation is written in (YAML or
 * JSON). A script is an ordered list of turns, either flat (`turns:`) or grouped into `conversations:`
 * picked by a marker in the request's opening (system prompt and first user messages). The server picks
 * a turn statelessly: turn N answers a request that already holds N assistant turns.
 */

/** Seconds as a number, or a text with a unit: `250ms`, `2s`, `1.5m`. Output: milliseconds. */
const duration = z.union([z.number(), z.string()]).transform((value, context) => {
  const milliseconds = durationMilliseconds(value);
  if (milliseconds === undefined) {
    context.addIssue({
      code: "custom",
      message: `not a duration: ${JSON.stringify(value)} (use 250ms, 2s, 1m)`,
    });
    return z.NEVER;
  }
  return milliseconds;
});

const tokens = z.number().int().nonnegative();

/** One tool call, named exactly as the client advertises the tool (Write, exec_command, apply_patch...). */
export const toolCallSchema = z
  .object({
    name: z.string().min(1),
    /** An object for function tools; a string for free-form tools (Codex's apply_patch); default `{}`. */
    input: z
      .union([z.record(z.string(), z.unknown()), z.string()], {
        error: "expected a mapping of arguments, or a string for a free-form tool",
      })
      .default({}),
  })
  .strict();

const errorObjectSchema = z
  .object({
    /** HTTP status: 429 rate limit, 500 server error, 529 overloaded... */
    status: z.number().int().min(400).max(599),
    message: z.string().optional(),
    /** Seconds, sent as the `retry-after` header. */
    retryAfter: z.number().nonnegative().optional(),
    /** Only the first N requests landing on this turn fail; later ones get the turn's content. Default: all. */
    times: z.number().int().positive().optional(),
  })
  .strict();

/** `error: 500` is short for `error: { status: 500 }`. */
const errorSchema = z
  .union([z.number().int().min(400).max(599), errorObjectSchema], {
    error: "expected an HTTP status (400-599) or { status, retryAfter, times, message }",
  })
  .transform((value) => (typeof value === "number" ? { status: value } : value));

const usageSchema = z
  .object({
    /** Input tokens not read from a cache. Default: the request body's size / 4. */
    input: tokens.optional(),
    /** Output tokens. Default: the answer's size / 4, at least 1. */
    output: tokens.optional(),
    /** Input tokens read from the prompt cache. Default 0. */
    cacheRead: tokens.optional(),
  })
  .strict();

/** One assistant turn. Content is `text`, `tools` (text may come first), `json`, or `hang`. */
export const turnSchema = z
  .object({
    text: z.string().optional(),
    tools: z.array(toolCallSchema).min(1).optional(),
    /** A structured answer: a `StructuredOutput` tool call where the client advertises one, else JSON text. */
    json: z.unknown().optional(),
    error: errorSchema.optional(),
    /** Wait this long before answering (seconds, or `250ms`, `2s`). */
    delay: duration.optional(),
    /** Never answer: the request stays open until the client disconnects or the server closes. */
    hang: z.literal(true).optional(),
    usage: usageSchema.optional(),
  })
  .strict()
  .superRefine((turn, context) => {
    const content = [
      turn.text !== undefined && "text",
      turn.tools !== undefined && "tools",
      turn.json !== undefined && "json",
      turn.hang && "hang",
    ].filter((name): name is string => Boolean(name));
    const problem = (message: string, path: PropertyKey[] = []) =>
      context.addIssue({ code: "custom", message, path });
    if (content.length === 0 && !turn.error) problem("a turn needs text, tools, json, hang or error");
    if (turn.json !== undefined && content.length > 1)
      problem(
        `json is a whole answer; it cannot be combined with ${content.filter((name) => name !== "json")}`,
      );
    if (turn.hang && content.length > 1)
      problem("hang never answers; it cannot be combined with other content");
    if (turn.error?.times !== undefined && content.length === 0)
      problem("times needs text, tools, json or hang for the requests after the errors", ["error", "times"]);
    if (turn.error && turn.error.times === undefined && content.length > 0)
      problem(`an error without times always fails, so ${content.join(", ")} would never be sent`, ["error"]);
  });

/** Selects a conversation by a marker found in the request's system prompt or opening user messages. */
const whenSchema = z.object({ contains: z.string().min(1) }).strict();

export const conversationSchema = z
  .object({
    name: z.string().min(1),
    /** Without `when`, the conversation takes every request no other conversation's marker claims. */
    when: whenSchema.optional(),
    turns: z.array(turnSchema),
  })
  .strict();

/** The script file. Exactly one of `turns` (one conversation named "default") or `conversations`. */
export const scriptSchema = z
  .object({
    /** Model names listed by `GET /v1/models`; default `["mock-model"]`. Any name is accepted on requests. */
    models: z.array(z.string().min(1)).min(1).optional(),
    turns: z.array(turnSchema).optional(),
    conversations: z.array(conversationSchema).min(1).optional(),
  })
  .strict()
  .superRefine((script, context) => {
    if ((script.turns === undefined) === (script.conversations === undefined))
      context.addIssue({
        code: "custom",
        message: "a script has either turns or conversations (exactly one)",
      });
    const names = new Set<string>();
    for (const [index, conversation] of (script.conversations ?? []).entries()) {
      if (names.has(conversation.name))
        context.addIssue({
          code: "custom",
          message: `duplicate conversation name "${conversation.name}"`,
          path: ["conversations", index, "name"],
        });
      names.add(conversation.name);
    }
  })
  .transform(
    (script): Script => ({
      models: script.models ?? ["mock-model"],
      conversations: script.conversations ?? [{ name: "default", turns: script.turns ?? [] }],
    }),
  );

/** A script as written (YAML/JSON shape), before defaults. */
export type ScriptInput = z.input<typeof scriptSchema>;
export type Turn = z.output<typeof turnSchema>;
export type ToolCall = z.output<typeof toolCallSchema>;
export type Conversation = z.output<typeof conversationSchema>;
/** A validated script: defaults filled, delays in milliseconds, errors as objects, always `conversations`. */
export type Script = { models: string[]; conversations: Conversation[] };

/** The JSON Schema of the script file format, for editors. */
export function scriptJsonSchema(): unknown {
  return z.toJSONSchema(scriptSchema, { io: "input", unrepresentable: "any" });
}

/**
 * Validates a script. Never throws for bad input: returns every problem, one line each,
 * `<label>: <field path>: <message>` (e.g. `script.yaml: turns[2].error.status: ...`).
 */
export function parseScript(
  data: unknown,
  label = "script",
): { ok: true; script: Script } | { ok: false; problems: string[] } {
  const result = scriptSchema.safeParse(data);
  if (result.success) return { ok: true, script: result.data };
  return {
    ok: false,
    problems: result.error.issues.map((issue) => {
      const path = fieldPath(issue.path);
      return path ? `${label}: ${path}: ${issue.message}` : `${label}: ${issue.message}`;
    }),
  };
}

function fieldPath(path: readonly PropertyKey[]): string {
  let text = "";
  for (const segment of path) {
    if (typeof segment === "number") text += `[${segment}]`;
    else text += text ? `.${String(segment)}` : String(segment);
  }
  return text;
}

function durationMilliseconds(value: string | number): number | undefined {
  if (typeof value === "number") return Number.isFinite(value) && value >= 0 ? value * 1000 : undefined;
  const match = /^\s*(\d+(?:\.\d+)?)\s*(ms|s|m)?\s*$/.exec(value);
  if (!match) return undefined;
  const factor = { ms: 1, s: 1000, m: 60_000 }[match[2] ?? "s"] ?? 1000;
  return Math.round(Number(match[1]) * factor);
}
