import { type HttpAnswer, jsonAnswer, sseAnswer, sseFrame } from "./http-answer.ts";
import { taggedId } from "./model-request.ts";
import type { Reply, ReplyBlock } from "./reply.ts";

/**
 * Renders a reply as an OpenAI Responses answer. Streaming: response.created, response.in_progress,
 * then per output item output_item.added, its deltas (output_text / function_call_arguments /
 * custom_tool_call_input) and output_item.done, and last response.completed with usage. Otherwise the
 * completed response object. Text is a `message` item, a function tool a `function_call` with JSON
 * arguments, a custom tool a `custom_tool_call` with its raw input.
 */
export function renderResponses(reply: Reply, model: string, turnIndex: number, stream: boolean): HttpAnswer {
  const items = reply.blocks.map((block) => itemOf(block, turnIndex));
  const base = {
    id: taggedId("resp", turnIndex),
    object: "response",
    created_at: Math.floor(Date.now() / 1000),
    model,
    parallel_tool_calls: true,
    error: null,
    incomplete_details: null,
  };
  const completed = {
    ...base,
    status: "completed",
    output: items,
    usage: {
      input_tokens: reply.usage.input + reply.usage.cacheRead,
      input_tokens_details: { cached_tokens: reply.usage.cacheRead },
      output_tokens: reply.usage.output,
      output_tokens_details: { reasoning_tokens: 0 },
      total_tokens: reply.usage.input + reply.usage.cacheRead + reply.usage.output,
    },
  };
  if (!stream) return jsonAnswer(completed);

  let sequence = 0;
  const frames: string[] = [];
  const emit = (type: string, data: Record<string, unknown>) =>
    frames.push(sseFrame(type, { type, sequence_number: sequence++, ...data }));
  const inProgress = { ...base, status: "in_progress", output: [], usage: null };
  emit("response.created", { response: inProgress });
  emit("response.in_progress", { response: inProgress });
  items.forEach((item, output_index) => {
    const item_id = item.id;
    if (item.type === "message") {
      const text = item.content[0].text;
      const part = { type: "output_text", text: "", annotations: [] };
      emit("response.output_item.added", {
        output_index,
        item: { ...item, status: "in_progress", content: [] },
      });
      emit("response.content_part.added", { item_id, output_index, content_index: 0, part });
      emit("response.output_text.delta", {
        item_id,
        output_index,
        content_index: 0,
        delta: text,
        logprobs: [],
      });
      emit("response.output_text.done", { item_id, output_index, content_index: 0, text, logprobs: [] });
      emit("response.content_part.done", {
        item_id,
        output_index,
        content_index: 0,
        part: { ...part, text },
      });
    } else if (item.type === "function_call") {
      emit("response.output_item.added", {
        output_index,
        item: { ...item, status: "in_progress", arguments: "" },
      });
      emit("response.function_call_arguments.delta", { item_id, output_index, delta: item.arguments });
      emit("response.function_call_arguments.done", { item_id, output_index, arguments: item.arguments });
    } else {
      emit("response.output_item.added", {
        output_index,
        item: { ...item, status: "in_progress", input: "" },
      });
      emit("response.custom_tool_call_input.delta", { item_id, output_index, delta: item.input });
      emit("response.custom_tool_call_input.done", { item_id, output_index, input: item.input });
    }
    emit("response.output_item.done", { output_index, item });
  });
  emit("response.completed", { response: completed });
  return sseAnswer(frames);
}

type OutputItem =
  | {
      type: "message";
      id: string;
      role: "assistant";
      status: string;
      content: { type: "output_text"; text: string; annotations: [] }[];
    }
  | { type: "function_call"; id: string; call_id: string; name: string; arguments: string; status: string }
  | { type: "custom_tool_call"; id: string; call_id: string; name: string; input: string; status: string };

function itemOf(block: ReplyBlock, turnIndex: number): OutputItem {
  if (block.type === "text")
    return {
      type: "message",
      id: taggedId("msg", turnIndex),
      role: "assistant",
      status: "completed",
      content: [{ type: "output_text", text: block.text, annotations: [] }],
    };
  if (block.custom)
    return {
      type: "custom_tool_call",
      id: taggedId("ctc", turnIndex),
      call_id: block.id,
      name: block.name,
      input: typeof block.input === "string" ? block.input : JSON.stringify(block.input),
      status: "completed",
    };
  return {
    type: "function_call",
    id: taggedId("fc", turnIndex),
    call_id: block.id,
    name: block.name,
    arguments: JSON.stringify(block.input),
    status: "completed",
  };
}
