import {
  type AdvertisedTool,
  countAssistantTurns,
  isRecord,
  type ModelRequest,
  textOfContent,
  turnAfterTaggedCalls,
} from "./model-request.ts";

/**
 * Reads an Anthropic Messages request (`POST /v1/messages`). Claude Code sends the system prompt as a
 * list of text blocks and also puts `role: "system"` entries inside `messages`; those count as system
 * text, never as turns.
 */
export function parseAnthropicRequest(body: Record<string, unknown>): ModelRequest {
  const messages = Array.isArray(body.messages) ? body.messages.filter(isRecord) : [];
  const system = textOfContent(body.system);
  const roleOf = (message: Record<string, unknown>) => String(message.role ?? "");

  const opening = [...system];
  for (const message of messages) {
    if (roleOf(message) === "assistant") break;
    opening.push(...textOfContent(message.content));
  }
  const texts = [...system, ...messages.flatMap((message) => textOfContent(message.content))];
  const counted = countAssistantTurns(
    messages,
    (message) =>
      roleOf(message) === "assistant" ? "assistant" : roleOf(message) === "system" ? "ignore" : "other",
    () => undefined,
  );
  const callIds = messages
    .filter((message) => roleOf(message) === "assistant" && Array.isArray(message.content))
    .flatMap((message) => (message.content as unknown[]).filter(isRecord).map((part) => part.id));
  const assistantTurns = Math.max(counted, turnAfterTaggedCalls(callIds));
  const tools: AdvertisedTool[] = (Array.isArray(body.tools) ? body.tools : [])
    .filter(isRecord)
    .filter((tool) => typeof tool.name === "string")
    .map((tool) => ({ name: String(tool.name), custom: false }));
  return {
    protocol: "anthropic",
    model: typeof body.model === "string" ? body.model : "",
    stream: body.stream === true,
    opening: opening.join("\n"),
    texts,
    assistantTurns,
    tools,
  };
}
