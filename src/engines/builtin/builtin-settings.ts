/**
 * The `builtin` engine's settings from its spec entry (pure): `model` is the model id
 * (`anthropic:claude-sonnet-4-6`, `openai:gpt-5.5`, `openai-compatible:NAME@URL`), and `args` takes the
 * same flags as `loopwright agent`: `--max-turns N`, `--context-window TOKENS`, `--max-output-tokens TOKENS`,
 * `--api-key-env NAME` (the variable holding the model server's key; see agent/providers.ts).
 */
import { defaultModelId, type ModelId, parseModelId } from "../../agent/model-id.ts";
import type { EngineSpec } from "../../core/spec.ts";
import { UsageError } from "../../errors.ts";
import type { Provider } from "../agent-cli/engine-definition.ts";

export interface BuiltinSettings {
  model: string;
  parsed: ModelId;
  /** 0 = none. */
  maxTurns: number;
  /** 0 = the model's known window. */
  contextWindow: number;
  /** 0 = the default for the window. */
  maxOutputTokens: number;
  /** The environment variable holding the key; undefined = the provider's usual one. */
  apiKeyEnv?: string;
}

/** The default cap on model calls per turn: a runaway turn ends as a finished attempt, not a hang. */
export const defaultMaxTurns = 200;

const flags: Record<string, keyof Omit<BuiltinSettings, "model" | "parsed" | "apiKeyEnv">> = {
  "--max-turns": "maxTurns",
  "--context-window": "contextWindow",
  "--max-output-tokens": "maxOutputTokens",
};

/** Reads the spec entry; a `UsageError` names the field (`field.model`, `field.args`) that is wrong. */
export function builtinSettings(spec: Pick<EngineSpec, "model" | "args">, field: string): BuiltinSettings {
  const model = spec.model ?? defaultModelId;
  let parsed: ModelId;
  try {
    parsed = parseModelId(model);
  } catch (error) {
    throw new UsageError(`${field}.model: ${(error as Error).message}`);
  }
  const settings: BuiltinSettings = {
    model,
    parsed,
    maxTurns: defaultMaxTurns,
    contextWindow: 0,
    maxOutputTokens: 0,
  };
  const args = spec.args ?? [];
  for (let index = 0; index < args.length; index++) {
    const [flag, inline] = args[index].split(/=(.*)/s, 2);
    if (flag === "--api-key-env") {
      const name = inline ?? args[++index];
      if (!name || !/^[A-Za-z_][A-Za-z0-9_]*$/.test(name))
        throw new UsageError(
          `${field}.args: --api-key-env takes a variable name, got ${JSON.stringify(name)}`,
        );
      settings.apiKeyEnv = name;
      continue;
    }
    const key = flags[flag];
    if (!key)
      throw new UsageError(
        `${field}.args: unknown option ${JSON.stringify(args[index])} for engine builtin (known: ${[...Object.keys(flags), "--api-key-env"].join(", ")})`,
      );
    const text = inline ?? args[++index];
    const value = Number(text);
    if (!Number.isInteger(value) || value < 0)
      throw new UsageError(`${field}.args: ${flag} takes a whole number, got ${JSON.stringify(text)}`);
    settings[key] = value;
  }
  return settings;
}

/** The provider family of the model, for picking a verifier of another provider. */
export function builtinProvider(spec: Pick<EngineSpec, "model">): Provider {
  try {
    const { provider } = parseModelId(spec.model ?? defaultModelId);
    return provider === "openai-compatible" ? "local" : provider;
  } catch {
    return "unknown";
  }
}
