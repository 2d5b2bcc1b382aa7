import { type HttpAnswer, jsonAnswer, sseAnswer, sseFrame } from "./http-answer.ts";
import { taggedId } from "./model-request.ts";
import type { Reply, ReplyBlock } from "./reply.ts";

/**
 * Renders a reply as an OpenAI Chat Completions answer. Streaming: `chat.completion.chunk` frames
 * (role, `delta.content`, one `delta.tool_calls` entry per call, the finish reason), a last chunk with
 * `usage` and no choices, then `data: [DONE]`. Otherwise one `chat.completion` object.
 */
export function renderChat(reply: Reply, model: string, turnIndex: number, stream: boolean): HttpAnswer {
  const id = taggedId("chatcmpl", turnIndex);
  const created = Math.floor(Date.now() / 1000);
  const text = reply.blocks.flatMap((block) => (block.type === "text" ? [block.text] : [])).join("\n\n");
  const calls = reply.blocks.filter((block) => block.type === "tool").map(toolCallOf);
  const finishReason = calls.length > 0 ? "tool_calls" : "stop";
  const usage = {
    prompt_tokens: reply.usage.input + reply.usage.cacheRead,
    completion_tokens: reply.usage.output,
    total_tokens: reply.usage.input + reply.usage.cacheRead + reply.usage.output,
    prompt_tokens_details: { cached_tokens: reply.usage.cacheRead },
  };
  if (!stream) {
    const message = {
      role: "assistant",
      content: text || null,
      ...(calls.length > 0 ? { tool_calls: calls } : {}),
    };
    return jsonAnswer({
      id,
      object: "chat.completion",
      created,
      model,
      choices: [{ index: 0, message, finish_reason: finishReason, logprobs: null }],
      usage,
    });
  }

  const chunk = (choices: unknown[], extra: Record<string, unknown> = {}) =>
    sseFrame(undefined, { id, object: "chat.completion.chunk", created, model, choices, ...extra });
  const choice = (delta: Record<string, unknown>, finish_reason: string | null = null) => ({
    index: 0,
    delta,
    finish_reason,
    logprobs: null,
  });
  const frames = [chunk([choice({ role: "assistant", content: "" })])];
  if (text) frames.push(chunk([choice({ content: text })]));
  calls.forEach((call, index) => {
    frames.push(chunk([choice({ tool_calls: [{ index, ...call }] })]));
  });
  frames.push(chunk([choice({}, finishReason)]));
  frames.push(chunk([], { usage }));
  frames.push(sseFrame(undefined, "[DONE]"));
  return sseAnswer(frames);
}

function toolCallOf(block: Extract<ReplyBlock, { type: "tool" }>) {
  if (block.custom)
    return {
      id: block.id,
      type: "custom",
      custom: {
        name: block.name,
        input: typeof block.input === "string" ? block.input : JSON.stringify(block.input),
      },
    };
  return {
    id: block.id,
    type: "function",
    function: { name: block.name, arguments: JSON.stringify(block.input) },
  };
}
