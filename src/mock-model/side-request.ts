import { isRecord, type Protocol } from "./model-request.ts";

/**
 * Requests a client makes beside the conversation, answered without consulting the script so they
 * never take a scripted turn (or an error's `times`). Today one: Claude Code's session title request
 * (sent unless CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1): no tools, and an `output_config.format`
 * JSON schema whose only property is `title`. Returns the answer text, or undefined for a normal request.
 */
export function sideRequestAnswer(protocol: Protocol, body: Record<string, unknown>): string | undefined {
  if (protocol !== "anthropic") return undefined;
  if (Array.isArray(body.tools) && body.tools.length > 0) return undefined;
  const format = isRecord(body.output_config) ? body.output_config.format : undefined;
  const schema = isRecord(format) && format.type === "json_schema" ? format.schema : undefined;
  const properties = isRecord(schema) && isRecord(schema.properties) ? Object.keys(schema.properties) : [];
  if (properties.length === 1 && properties[0] === "title")
    return JSON.stringify({ title: "Scripted session" });
  return undefined;
}
