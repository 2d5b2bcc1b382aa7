/**
 * One model call, streamed: text deltas go out as they arrive, tool calls and usage are collected, and a
 * 429 or 529 answer is retried after the wait the retry policy names. Never throws: a failure (HTTP
 * error, network, missing key, abort) comes back as `failure`.
 */
import { APICallError, type ModelMessage, streamText, type ToolSet } from "ai";
import type { TokenUsage } from "../core/engine.ts";
import type { AgentEvent } from "./agent-types.ts";
import type { AgentModel } from "./providers.ts";
import { retryDelayMs } from "./retry-policy.ts";

// The SDK prints call warnings (such as an unknown model's default limits) to the console unless told
// not to; the agent's output is its events.
(globalThis as { AI_SDK_LOG_WARNINGS?: boolean }).AI_SDK_LOG_WARNINGS = false;

export interface ModelCallRequest {
  model: AgentModel;
  system: string;
  messages: ModelMessage[];
  tools?: ToolSet;
  signal: AbortSignal;
  maxRetries: number;
  onEvent?: (event: AgentEvent) => void;
  /** Stream text deltas as `text` events (not for compaction summaries). */
  streamText: boolean;
}

/** A tool call exactly as the model made it: `input` is whatever it sent (maybe not even an object). */
export interface RequestedToolCall {
  id: string;
  name: string;
  input: unknown;
}

export interface ModelAnswer {
  text: string;
  toolCalls: RequestedToolCall[];
  usage: TokenUsage;
  /** Why the call produced no usable answer, in one line. */
  failure?: string;
}

export async function callModel(request: ModelCallRequest): Promise<ModelAnswer> {
  const usage: TokenUsage = { inputTokens: 0, outputTokens: 0, cachedInputTokens: 0 };
  for (let attempt = 1; ; attempt++) {
    const answer = await streamOnce(request);
    addUsage(usage, answer.usage);
    if (!answer.error) return { ...answer, usage };
    const failure = describeFailure(answer.error);
    const error = APICallError.isInstance(answer.error) ? (answer.error as APICallError) : undefined;
    const retryable = error !== undefined && !answer.streamed && attempt <= request.maxRetries;
    const delayMs = retryable ? retryDelayMs(error.statusCode, error.responseHeaders, attempt) : undefined;
    if (delayMs === undefined || request.signal.aborted) return { ...answer, usage, failure };
    request.onEvent?.({ type: "model_retried", status: error?.statusCode ?? 0, delayMs, attempt });
    if (!(await wait(delayMs, request.signal))) return { ...answer, usage, failure };
  }
}

interface Attempt {
  text: string;
  toolCalls: RequestedToolCall[];
  usage: TokenUsage;
  /** True once any text reached the caller: such an answer is not retried (it would repeat itself). */
  streamed: boolean;
  error?: unknown;
}

async function streamOnce(request: ModelCallRequest): Promise<Attempt> {
  const attempt: Attempt = {
    text: "",
    toolCalls: [],
    usage: { inputTokens: 0, outputTokens: 0, cachedInputTokens: 0 },
    streamed: false,
  };
  try {
    const result = streamText({
      model: request.model.language,
      system: request.model.system(request.system),
      messages: request.model.messages(request.messages),
      tools: request.tools,
      maxRetries: 0,
      maxOutputTokens: request.model.maxOutputTokens,
      abortSignal: request.signal,
      providerOptions: request.model.providerOptions,
      // Failures arrive as `error` parts below; the SDK's default would print them to stderr.
      onError: () => {},
    });
    for await (const part of result.fullStream) {
      if (part.type === "text-delta") {
        attempt.text += part.text;
        attempt.streamed = true;
        if (request.streamText) request.onEvent?.({ type: "text", text: part.text });
      } else if (part.type === "tool-call") {
        attempt.toolCalls.push({ id: part.toolCallId, name: part.toolName, input: part.input });
      } else if (part.type === "finish-step") {
        attempt.usage = {
          inputTokens: part.usage.inputTokens ?? 0,
          outputTokens: part.usage.outputTokens ?? 0,
          cachedInputTokens: part.usage.inputTokenDetails?.cacheReadTokens ?? 0,
        };
      } else if (part.type === "error") {
        attempt.error = part.error;
      } else if (part.type === "abort") {
        attempt.error = new Error("the model call was aborted");
      }
    }
  } catch (error) {
    attempt.error = error;
  }
  if (!attempt.error && request.signal.aborted) attempt.error = new Error("the model call was aborted");
  return attempt;
}

/** One line: the HTTP status and the server's message where there is one. */
export function describeFailure(error: unknown): string {
  if (APICallError.isInstance(error)) {
    const status = error.statusCode ? `HTTP ${error.statusCode}` : "no answer";
    return `model call failed (${status}): ${firstLine(error.message)}`;
  }
  return `model call failed: ${firstLine(error instanceof Error ? error.message : String(error))}`;
}

function firstLine(text: string): string {
  return text.trim().split("\n")[0].slice(0, 500);
}

function addUsage(total: TokenUsage, usage: TokenUsage): void {
  total.inputTokens += usage.inputTokens;
  total.outputTokens += usage.outputTokens;
  total.cachedInputTokens = (total.cachedInputTokens ?? 0) + (usage.cachedInputTokens ?? 0);
}

/** Resolves true after `ms`, or false as soon as `signal` aborts. */
function wait(ms: number, signal: AbortSignal): Promise<boolean> {
  if (signal.aborted) return Promise.resolve(false);
  return new Promise((resolve) => {
    const timer = setTimeout(() => {
      signal.removeEventListener("abort", onAbort);
      resolve(true);
    }, ms);
    const onAbort = () => {
      clearTimeout(timer);
      resolve(false);
    };
    signal.addEventListener("abort", onAbort, { once: true });
  });
}
