/**
 * The model behind a model id, through the Vercel AI SDK: Anthropic Messages, OpenAI Responses, or the
 * Chat Completions of any OpenAI-compatible server (Ollama, vLLM, LM Studio, OpenRouter). Keys and base
 * URLs come from the usual environment variables, and a key goes only to its own provider: an
 * OpenAI-compatible server never receives OPENAI_API_KEY; it gets the variable named by `apiKeyEnv`, else
 * LOOPWRIGHT_OPENAI_COMPATIBLE_API_KEY, else no key. Prompt caching: Anthropic gets explicit cache
 * breakpoints (system prompt and the newest message), OpenAI a stable prompt-cache key; OpenAI-compatible
 * servers cache, if at all, on their own.
 */
import { createAnthropic } from "@ai-sdk/anthropic";
import { createOpenAI } from "@ai-sdk/openai";
import { createOpenAICompatible } from "@ai-sdk/openai-compatible";
import type { LanguageModel, ModelMessage, SystemModelMessage } from "ai";
import { compatibleKeyVariable, defaultContextWindow, type ModelId, parseModelId } from "./model-id.ts";

type ProviderOptions = NonNullable<SystemModelMessage["providerOptions"]>;

export interface AgentModel {
  /** The id as given, e.g. `anthropic:claude-sonnet-4-6`. */
  id: string;
  parsed: ModelId;
  language: LanguageModel;
  /** Tokens the model's context holds, input and output together. */
  contextWindow: number;
  /** The cap on one answer's tokens (kept out of the window's room for input). */
  maxOutputTokens: number;
  /** The system prompt as sent, with a cache breakpoint where the provider takes one. */
  system(text: string): SystemModelMessage;
  /** The messages as sent: the newest carries a cache breakpoint where the provider takes one. */
  messages(messages: ModelMessage[]): ModelMessage[];
  /** Options for every call (OpenAI's prompt-cache key). */
  providerOptions: ProviderOptions;
}

export interface ModelOptions {
  /** Environment to read keys and base URLs from; default process.env. */
  env?: NodeJS.ProcessEnv;
  /** Overrides the model's known window, in tokens. */
  contextWindow?: number;
  maxOutputTokens?: number;
  /** Groups a session's calls for OpenAI's prompt cache. */
  sessionKey?: string;
  /** The environment variable holding the key, instead of the provider's usual one. */
  apiKeyEnv?: string;
}

export { compatibleKeyVariable };

/** Builds the model for `id`; throws `UsageError` for a malformed id (never for a missing key: calls fail then). */
export function createAgentModel(id: string, options: ModelOptions = {}): AgentModel {
  const env = options.env ?? process.env;
  const parsed = parseModelId(id);
  const contextWindow = options.contextWindow || defaultContextWindow(parsed);
  const maxOutputTokens = options.maxOutputTokens || Math.min(16_384, Math.floor(contextWindow / 4));
  const plain: Pick<AgentModel, "system" | "messages" | "providerOptions"> = {
    system: (text) => ({ role: "system", content: text }),
    messages: (messages) => messages,
    providerOptions: {},
  };
  const base = { id, parsed, contextWindow, maxOutputTokens };
  const named = options.apiKeyEnv ? env[options.apiKeyEnv] || undefined : undefined;
  switch (parsed.provider) {
    case "anthropic": {
      const provider = createAnthropic({
        baseURL: anthropicBaseUrl(env.ANTHROPIC_BASE_URL),
        ...(options.apiKeyEnv
          ? { apiKey: named ?? "" }
          : env.ANTHROPIC_API_KEY
            ? { apiKey: env.ANTHROPIC_API_KEY }
            : env.ANTHROPIC_AUTH_TOKEN
              ? { authToken: env.ANTHROPIC_AUTH_TOKEN }
              : {}),
      });
      const cached = { anthropic: { cacheControl: { type: "ephemeral" } } };
      return {
        ...base,
        language: provider(parsed.name),
        system: (text) => ({ role: "system", content: text, providerOptions: cached }),
        messages: (messages) =>
          messages.map((message, index) =>
            index === messages.length - 1 ? { ...message, providerOptions: cached } : message,
          ) as ModelMessage[],
        providerOptions: {},
      };
    }
    case "openai": {
      const provider = createOpenAI({
        baseURL: env.OPENAI_BASE_URL || undefined,
        apiKey: options.apiKeyEnv ? (named ?? "") : env.OPENAI_API_KEY || undefined,
      });
      return {
        ...base,
        ...plain,
        language: provider.responses(parsed.name),
        providerOptions: options.sessionKey ? { openai: { promptCacheKey: options.sessionKey } } : {},
      };
    }
    case "openai-compatible": {
      const provider = createOpenAICompatible({
        name: "openai-compatible",
        baseURL: parsed.baseUrl ?? "",
        apiKey: options.apiKeyEnv ? named : env[compatibleKeyVariable] || undefined,
        includeUsage: true,
      });
      return { ...base, ...plain, language: provider.chatModel(parsed.name) };
    }
  }
}

/**
 * ANTHROPIC_BASE_URL as Claude Code reads it (a server root such as `http://127.0.0.1:8080`) turned
 * into the SDK's prefix, which ends in `/v1`.
 */
function anthropicBaseUrl(value: string | undefined): string | undefined {
  if (!value) return undefined;
  const trimmed = value.replace(/\/+$/, "");
  return trimmed.endsWith("/v1") ? trimmed : `${trimmed}/v1`;
}
