/**
 * The `copilot` engine: GitHub's Copilot CLI (`copilot`, npm `@github/copilot`) run headless in the
 * turn's worktree with the user's own login or custom provider (COPILOT_PROVIDER_BASE_URL). The command
 * line is built in copilot-arguments.ts, its output read by translate-copilot.ts.
 * Cost: none. Copilot reports no dollars and streams no tokens, so no cost cap can be enforced; the turn's
 * tokens and premium requests are read from its usage report once it ends, and the cost stays unknown.
 * The CLI keeps its own state under `$COPILOT_HOME` (default ~/.copilot: sessions, logs) and unpacks
 * itself under `$XDG_CACHE_HOME` (default ~/.cache/copilot); loopwright writes neither. A turn runs in
 * run-copilot-turn.ts, loaded at the first turn.
 */

import { homedir } from "node:os";
import { join } from "node:path";
import type { Engine } from "../../core/engine.ts";
import type { EngineSpec } from "../../core/spec.ts";
import { existsSync, readFileSync } from "../../files/node-fs.ts";
import type { AgentCliDefinition, Provider } from "../agent-cli/engine-definition.ts";

export const copilotDefinition: AgentCliDefinition = {
  name: "copilot",
  packageName: "@github/copilot",
  binary: "copilot",
  provider: (spec, env = process.env) => copilotProvider(copilotModel(spec, env), env),
  costReporting: "none",
  credentials: copilotCredentials,
  create: createCopilotEngine,
};

export function createCopilotEngine(spec: EngineSpec): Engine {
  return {
    name: "copilot",
    family: copilotProvider(copilotModel(spec, process.env), process.env),
    runTurn: async (request) => (await import("./run-copilot-turn.ts")).runCopilotTurn(spec, request),
  };
}

/** The model Copilot would use: the spec's, else `$COPILOT_MODEL`, else the user's settings; undefined = its default. */
export function copilotModel(
  spec: Pick<EngineSpec, "model" | "args">,
  env: NodeJS.ProcessEnv,
): string | undefined {
  const flag = spec.args?.indexOf("--model") ?? -1;
  const fromArgs =
    flag >= 0 ? spec.args?.[flag + 1] : spec.args?.find((arg) => arg.startsWith("--model="))?.slice(8);
  return fromArgs ?? spec.model ?? (env.COPILOT_MODEL || undefined) ?? settingsModel(env);
}

/**
 * The provider of the model behind Copilot, by its name (Copilot routes OpenAI, Anthropic and Google
 * models alike). Without a model Copilot picks one server-side, which cannot be told in advance:
 * "github". A custom provider (COPILOT_PROVIDER_BASE_URL) serving an unrecognized model is "local" on
 * this machine, "unknown" elsewhere.
 */
export function copilotProvider(model: string | undefined, env: NodeJS.ProcessEnv = process.env): Provider {
  const name = (model ?? "").toLowerCase();
  if (/(^|[/:])(gpt-|o\d|codex|chatgpt)/.test(name)) return "openai";
  if (/(^|[/:])claude/.test(name)) return "anthropic";
  if (/(^|[/:])gemini/.test(name)) return "google";
  const baseUrl = env.COPILOT_PROVIDER_BASE_URL;
  if (baseUrl) {
    if (env.COPILOT_PROVIDER_TYPE === "anthropic") return "anthropic";
    return /^https?:\/\/(localhost|127\.|\[::1\])/.test(baseUrl) ? "local" : "unknown";
  }
  return !name || name === "auto" ? "github" : "unknown";
}

/** The credentials Copilot would find, by name: tokens and keys in the environment, a `copilot` or `gh` login. */
export function copilotCredentials(env: NodeJS.ProcessEnv = process.env): string[] {
  const found = [
    "COPILOT_GITHUB_TOKEN",
    "GH_TOKEN",
    "GITHUB_TOKEN",
    "COPILOT_PROVIDER_API_KEY",
    "COPILOT_PROVIDER_BEARER_TOKEN",
    "COPILOT_PROVIDER_API_KEY_COMMAND",
  ].filter((name) => Boolean(env[name]));
  const config = join(copilotHome(env), "config.json");
  if (/"(loggedInUsers|lastLoggedInUser)"/.test(readText(config))) found.push(`copilot login (${config})`);
  const ghHosts = join(env.GH_CONFIG_DIR || join(env.HOME || homedir(), ".config", "gh"), "hosts.yml");
  if (existsSync(ghHosts)) found.push(`gh login (${ghHosts})`);
  return found;
}

function copilotHome(env: NodeJS.ProcessEnv): string {
  return env.COPILOT_HOME || join(env.HOME || homedir(), ".copilot");
}

/** `model` of the user's settings.json (JSON with comments), read only. */
function settingsModel(env: NodeJS.ProcessEnv): string | undefined {
  const text = readText(join(copilotHome(env), "settings.json")).replace(/^\s*\/\/.*$/gm, "");
  try {
    const model = (JSON.parse(text) as { model?: unknown }).model;
    return typeof model === "string" && model ? model : undefined;
  } catch {
    return undefined;
  }
}

function readText(path: string): string {
  try {
    return readFileSync(path, "utf8");
  } catch {
    return "";
  }
}
