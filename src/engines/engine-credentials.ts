/**
 * Whether an engine of the spec could authenticate to its model, checked before anything is spent, the
 * way `doctor` looks (names of variables and logins, never their values). A maker or verifier that
 * cannot authenticate fails every turn: `validate` and `run` refuse it, and `auto` never picks it.
 */
import { compatibleKeyVariable } from "../agent/model-id.ts";
import type { EngineSpec } from "../core/spec.ts";
import { agentCliDefinitions } from "./agent-cli/definitions.ts";
import { builtinSettings } from "./builtin/builtin-settings.ts";

/** Where each engine looks for credentials, for the problem line. */
const hints: Record<string, string> = {
  "claude-code":
    "set ANTHROPIC_API_KEY (or ANTHROPIC_AUTH_TOKEN, CLAUDE_CODE_OAUTH_TOKEN) or run `claude` and log in",
  codex:
    "set OPENAI_API_KEY (or CODEX_API_KEY, or the env_key of your codex model provider) or run `codex login`",
  copilot:
    "set COPILOT_GITHUB_TOKEN (or GH_TOKEN, GITHUB_TOKEN, COPILOT_PROVIDER_API_KEY) or run `copilot` and log in",
};

/**
 * The credentials an engine entry would use, by name; `[]` when it finds none. `undefined` when it
 * needs none: commands, scripted turns, local models, an openai-compatible server without a named key.
 */
export function engineCredentials(
  spec: EngineSpec,
  env: NodeJS.ProcessEnv = process.env,
): string[] | undefined {
  if (spec.engine === "command" || spec.engine === "scripted" || spec.engine === "auto") return undefined;
  if (spec.engine === "builtin") return builtinCredentials(spec, env);
  const definition = agentCliDefinitions.find((candidate) => candidate.name === spec.engine);
  if (!definition || definition.provider(spec, env) === "local") return undefined;
  const found = definition.credentials(env);
  const named = keyVariablesOfArgs(spec.args ?? []).filter((name) => env[name] && !found.includes(name));
  return [...found, ...named];
}

/** One problem line when the engine entry in `field` cannot authenticate; undefined when it can (or needs not). */
export function credentialProblem(
  spec: EngineSpec,
  field: string,
  env: NodeJS.ProcessEnv = process.env,
): string | undefined {
  const found = engineCredentials(spec, env);
  if (found === undefined || found.length > 0) return undefined;
  const hint =
    spec.engine === "builtin" ? builtinHint(spec) : (hints[spec.engine] ?? "configure its credentials");
  return `${field}.engine: ${spec.engine} finds no credentials to call its model with: ${hint}`;
}

function builtinCredentials(spec: EngineSpec, env: NodeJS.ProcessEnv): string[] | undefined {
  const settings = builtinSettings(spec, "engine");
  if (settings.apiKeyEnv) return env[settings.apiKeyEnv] ? [settings.apiKeyEnv] : [];
  switch (settings.parsed.provider) {
    case "anthropic":
      return ["ANTHROPIC_API_KEY", "ANTHROPIC_AUTH_TOKEN"].filter((name) => env[name]);
    case "openai":
      return env.OPENAI_API_KEY ? ["OPENAI_API_KEY"] : [];
    case "openai-compatible":
      return env[compatibleKeyVariable] ? [compatibleKeyVariable] : undefined;
  }
}

function builtinHint(spec: EngineSpec): string {
  const settings = builtinSettings(spec, "engine");
  if (settings.apiKeyEnv) return `set ${settings.apiKeyEnv} (named by --api-key-env)`;
  return settings.parsed.provider === "anthropic"
    ? "set ANTHROPIC_API_KEY (or ANTHROPIC_AUTH_TOKEN)"
    : "set OPENAI_API_KEY";
}

/** Variables named as a provider's `env_key` in `-c`/`--config` values of the spec's args (codex). */
function keyVariablesOfArgs(args: string[]): string[] {
  return args.flatMap((word) =>
    [...word.matchAll(/env_key\s*=\s*["']?([A-Za-z_][A-Za-z0-9_]*)/g)].map((match) => match[1]),
  );
}
