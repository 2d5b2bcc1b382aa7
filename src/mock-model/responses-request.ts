import {
  type AdvertisedTool,
  countAssistantTurns,
  isRecord,
  type ModelRequest,
  textOfContent,
  turnAfterTaggedCalls,
  turnTagOf,
} from "./model-request.ts";

/**
 * Reads an OpenAI Responses request (`POST /v1/responses`, Codex and Copilot). The system prompt is
 * `instructions` and/or `developer`/`system` messages; the model's own earlier output comes back as
 * assistant messages, `reasoning` and `*_call` items, the tools' answers as `*_call_output` items.
 */
export function parseResponsesRequest(body: Record<string, unknown>): ModelRequest {
  const items: Record<string, unknown>[] =
    typeof body.input === "string"
      ? [{ type: "message", role: "user", content: body.input }]
      : Array.isArray(body.input)
        ? body.input.filter(isRecord)
        : [];
  const instructions = typeof body.instructions === "string" ? [body.instructions] : [];

  const opening = [...instructions];
  for (const item of items) {
    if (kindOf(item) === "assistant") break;
    opening.push(...itemTexts(item));
  }
  const tools: AdvertisedTool[] = (Array.isArray(body.tools) ? body.tools : [])
    .filter(isRecord)
    .filter((tool) => typeof tool.name === "string")
    .map((tool) => ({ name: String(tool.name), custom: tool.type === "custom" }));
  return {
    protocol: "responses",
    model: typeof body.model === "string" ? body.model : "",
    stream: body.stream === true,
    opening: opening.join("\n"),
    texts: [...instructions, ...items.flatMap(itemTexts)],
    assistantTurns: Math.max(
      countAssistantTurns(items, kindOf, (item) => turnTagOf(item.call_id ?? item.id)),
      turnAfterTaggedCalls(
        items.filter((item) => String(item.type ?? "").endsWith("_call")).map((item) => item.call_id),
      ),
    ),
    tools,
  };
}

function kindOf(item: Record<string, unknown>): "assistant" | "tool_output" | "other" {
  const type = typeof item.type === "string" ? item.type : "message";
  if (type === "message") return item.role === "assistant" ? "assistant" : "other";
  if (type.endsWith("_output")) return "tool_output";
  if (type === "reasoning" || type.endsWith("_call")) return "assistant";
  return "other";
}

function itemTexts(item: Record<string, unknown>): string[] {
  const texts = textOfContent(item.content);
  if (typeof item.output === "string") texts.push(item.output);
  else texts.push(...textOfContent(item.output));
  return texts;
}
