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
 * Reads an OpenAI Chat Completions request (`POST /v1/chat/completions`). An assistant message with
 * `tool_calls` is one turn; the `tool` messages that answer it are tool outputs.
 */
export function parseChatRequest(body: Record<string, unknown>): ModelRequest {
  const messages = Array.isArray(body.messages) ? body.messages.filter(isRecord) : [];
  const opening: string[] = [];
  for (const message of messages) {
    if (message.role === "assistant") break;
    opening.push(...textOfContent(message.content));
  }
  const tools: AdvertisedTool[] = (Array.isArray(body.tools) ? body.tools : [])
    .filter(isRecord)
    .flatMap((tool) => {
      const definition = isRecord(tool.function) ? tool.function : isRecord(tool.custom) ? tool.custom : tool;
      return typeof definition.name === "string"
        ? [{ name: definition.name, custom: tool.type === "custom" }]
        : [];
    });
  return {
    protocol: "chat",
    model: typeof body.model === "string" ? body.model : "",
    stream: body.stream === true,
    opening: opening.join("\n"),
    texts: messages.flatMap((message) => textOfContent(message.content)),
    assistantTurns: Math.max(
      countAssistantTurns(
        messages,
        (message) =>
          message.role === "assistant" ? "assistant" : message.role === "tool" ? "tool_output" : "other",
        (message) =>
          Array.isArray(message.tool_calls) ? turnTagOf(message.tool_calls.find(isRecord)?.id) : undefined,
      ),
      turnAfterTaggedCalls(
        messages.flatMap((message) =>
          Array.isArray(message.tool_calls) ? message.tool_calls.filter(isRecord).map((call) => call.id) : [],
        ),
      ),
    ),
    tools,
  };
}
