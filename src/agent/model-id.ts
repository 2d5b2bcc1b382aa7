/**
 * Model ids of the built-in agent, `provider:model[@baseUrl]` (pure, no SDK loaded):
 * `anthropic:claude-sonnet-4-6`, `openai:gpt-5.5`, `openai-compatible:qwen3-coder@http://127.0.0.1:11434/v1`.
 * A bare model name is accepted where its provider is plain from it (`claude-…`, `gpt-…`, `o3`…).
 */
import { UsageError } from "../errors.ts";

export const providerNames = ["anthropic", "openai", "openai-compatible"] as const;
export type ProviderName = (typeof providerNames)[number];

export interface ModelId {
  provider: ProviderName;
  /** The model's name as its server knows it (and as the price table matches it). */
  name: string;
  /** Only for openai-compatible: the server's base URL, up to and including `/v1`. */
  baseUrl?: string;
}

/** The model when none is named. */
export const defaultModelId = "anthropic:claude-sonnet-4-6";

/** Parses an id; a `UsageError` says what a valid one looks like. */
export function parseModelId(id: string): ModelId {
  const text = id.trim();
  const colon = text.indexOf(":");
  const prefix = colon === -1 ? "" : text.slice(0, colon);
  if (!providerNames.includes(prefix as ProviderName)) {
    const inferred = inferProvider(text);
    if (inferred) return { provider: inferred, name: text };
    throw new UsageError(
      `model ${JSON.stringify(id)}: name a provider, e.g. anthropic:claude-sonnet-4-6, openai:gpt-5.5 or openai-compatible:qwen3-coder@http://127.0.0.1:11434/v1`,
    );
  }
  const provider = prefix as ProviderName;
  const rest = text.slice(colon + 1);
  if (provider !== "openai-compatible") {
    if (!rest)
      throw new UsageError(`model ${JSON.stringify(id)}: the model name is missing after ${provider}:`);
    return { provider, name: rest };
  }
  const at = rest.indexOf("@");
  const name = at === -1 ? rest : rest.slice(0, at);
  const baseUrl = at === -1 ? "" : rest.slice(at + 1);
  if (!name || !/^https?:\/\/\S+$/.test(baseUrl))
    throw new UsageError(
      `model ${JSON.stringify(id)}: an openai-compatible model needs its server, e.g. openai-compatible:qwen3-coder@http://127.0.0.1:11434/v1`,
    );
  return { provider, name, baseUrl: baseUrl.replace(/\/+$/, "") };
}

function inferProvider(name: string): ProviderName | undefined {
  if (/^claude-/i.test(name)) return "anthropic";
  if (/^(gpt-|o\d|codex-)/i.test(name)) return "openai";
  return undefined;
}

/** Tokens a model's context holds when the user names no window: known families, else a modest guess. */
export function defaultContextWindow(model: ModelId): number {
  const name = model.name.toLowerCase();
  if (name.startsWith("claude-")) return 200_000;
  if (name.startsWith("gpt-5")) return 272_000;
  if (name.startsWith("gpt-4.1")) return 1_000_000;
  if (/^o\d/.test(name)) return 200_000;
  return model.provider === "openai-compatible" ? 32_768 : 128_000;
}

/** The key of an OpenAI-compatible server when `apiKeyEnv` names none (here, not in providers.ts: no AI SDK to load). */
export const compatibleKeyVariable = "LOOPWRIGHT_OPENAI_COMPATIBLE_API_KEY";
