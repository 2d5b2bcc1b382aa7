import { type HttpAnswer, jsonAnswer, retryAfterHeader, sseAnswer, sseFrame } from "./http-answer.ts";
import { taggedId } from "./model-request.ts";
import type { Reply, ReplyBlock } from "./reply.ts";

/**
 * Renders a reply as an Anthropic Messages answer: the SSE event sequence Claude Code reads
 * (message_start, content_block_start/delta/stop per block, message_delta, message_stop) when
 * `stream`, else the plain message JSON.
 */
export function renderAnthropic(reply: Reply, model: string, turnIndex: number, stream: boolean): HttpAnswer {
  const content = reply.blocks.map(contentOf);
  const usage = {
    input_tokens: reply.usage.input,
    cache_creation_input_tokens: 0,
    cache_read_input_tokens: reply.usage.cacheRead,
    output_tokens: reply.usage.output,
  };
  const message = {
    id: taggedId("msg", turnIndex),
    type: "message",
    role: "assistant",
    model,
    content,
    stop_reason: reply.stopReason,
    stop_sequence: null,
    usage,
  };
  if (!stream) return jsonAnswer(message);

  const frame = (data: { type: string } & Record<string, unknown>) => sseFrame(data.type, data);
  const frames = [
    frame({
      type: "message_start",
      message: { ...message, content: [], stop_reason: null, usage: { ...usage, output_tokens: 1 } },
    }),
  ];
  reply.blocks.forEach((block, index) => {
    const start = block.type === "text" ? { type: "text", text: "" } : { ...contentOf(block), input: {} };
    const delta =
      block.type === "text"
        ? { type: "text_delta", text: block.text }
        : { type: "input_json_delta", partial_json: JSON.stringify(block.input) };
    frames.push(frame({ type: "content_block_start", index, content_block: start }));
    frames.push(frame({ type: "content_block_delta", index, delta }));
    frames.push(frame({ type: "content_block_stop", index }));
  });
  frames.push(
    frame({
      type: "message_delta",
      delta: { stop_reason: reply.stopReason, stop_sequence: null },
      usage: { output_tokens: reply.usage.output },
    }),
  );
  frames.push(frame({ type: "message_stop" }));
  return sseAnswer(frames);
}

/** An Anthropic error answer: `{type: "error", error: {type, message}}` with the matching error type. */
export function anthropicError(status: number, message: string, retryAfter?: number): HttpAnswer {
  const type =
    status === 429
      ? "rate_limit_error"
      : status === 529
        ? "overloaded_error"
        : status === 401
          ? "authentication_error"
          : status === 403
            ? "permission_error"
            : status === 404
              ? "not_found_error"
              : status >= 500
                ? "api_error"
                : "invalid_request_error";
  return jsonAnswer({ type: "error", error: { type, message } }, status, retryAfterHeader(retryAfter));
}

function contentOf(block: ReplyBlock) {
  return block.type === "text"
    ? { type: "text", text: block.text }
    : { type: "tool_use", id: block.id, name: block.name, input: block.input };
}
