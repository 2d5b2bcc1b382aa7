/**
 * The `codex` engine: OpenAI's Codex CLI (`@openai/codex`) run as `codex exec --json` in the turn's
 * worktree (argv per role in codex-arguments.ts, output folded by translate-codex.ts). It uses the
 * user's own login and configuration (CODEX_HOME, OPENAI_API_KEY) and never writes them. Codex reports
 * tokens only at the end of a turn, so the cost cap is enforced then: a turn that crosses it still runs
 * to its end, and then stops the loop. A turn runs in run-codex-turn.ts, loaded at the first turn.
 */

import { homedir } from "node:os";
import { join } from "node:path";
import type { Engine } from "../../core/engine.ts";
import type { EngineSpec } from "../../core/spec.ts";
import { existsSync, readFileSync } from "../../files/node-fs.ts";
import type { AgentCliDefinition, Provider } from "../agent-cli/engine-definition.ts";
import { modelOfConfig, modelOfSpec, profileOfArgs, providerKeyVariable } from "./codex-arguments.ts";

export const codexDefinition: AgentCliDefinition = {
  name: "codex",
  packageName: "@openai/codex",
  binary: "codex",
  provider: providerOf,
  costReporting: "end-of-turn",
  credentials(env = process.env) {
    const found = ["OPENAI_API_KEY", "CODEX_API_KEY"].filter((name) => env[name]);
    if (existsSync(join(codexHome(env), "auth.json"))) found.push("codex login (auth.json)");
    // A provider of the user's config.toml names the variable its key comes from.
    const keyVariable = providerKeyVariable(readConfig(env));
    if (keyVariable && env[keyVariable] && !found.includes(keyVariable)) found.push(keyVariable);
    return found;
  },
  create: createCodexEngine,
};

export function createCodexEngine(spec: EngineSpec): Engine {
  return {
    name: "codex",
    family: providerOf(spec),
    runTurn: async (request) => (await import("./run-codex-turn.ts")).runCodexTurn(spec, request),
  };
}

/** `--oss` runs a local model (Ollama, LM Studio); otherwise codex talks to OpenAI. */
function providerOf(spec: EngineSpec): Provider {
  return spec.args?.includes("--oss") ? "local" : "openai";
}

function codexHome(env: NodeJS.ProcessEnv): string {
  return env.CODEX_HOME || join(env.HOME || homedir(), ".codex");
}

/** The user's codex config.toml, read (never written); empty when there is none. */
function readConfig(env: NodeJS.ProcessEnv): string {
  try {
    return readFileSync(join(codexHome(env), "config.toml"), "utf8");
  } catch {
    return "";
  }
}

/**
 * The model a codex turn of this spec entry runs on, for pricing: named in the spec (`model`, `-m`,
 * `-c model=`), else by the profile or top-level `model` of the user's config.toml; undefined when only
 * codex's built-in default applies (codex's `--json` output never names the model).
 */
export function codexModel(spec: EngineSpec, env: NodeJS.ProcessEnv = process.env): string | undefined {
  return modelOfSpec(spec.model, spec.args) ?? modelOfConfig(readConfig(env), profileOfArgs(spec.args));
}
