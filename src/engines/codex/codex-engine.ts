/**
 * The `codex` engine: OpenAI's Codex CLI (`@openai/codex`) run as `codex exec --json` in the turn's
 * worktree (argv per role in codex-arguments.ts, output folded by translate-codex.ts). It uses the
 * user's own login and configuration (CODEX_HOME, OPENAI_API_KEY) and never writes them. Codex reports
 * tokens only at the end of a turn, so the cost cap is enforced then: a turn that crosses it still runs
 * to its end, and then stops the loop.
 */
import { existsSync, readFileSync } from "node:fs";
import { mkdir, writeFile } from "node:fs/promises";
import { homedir } from "node:os";
import { join } from "node:path";
import type { Engine, TurnRequest, TurnResult } from "../../core/engine.ts";
import { type ModelPrice, priceTable } from "../../core/pricing.ts";
import type { EngineSpec } from "../../core/spec.ts";
import type { AgentCliDefinition, Provider } from "../agent-cli/engine-definition.ts";
import { runCliTurn } from "../agent-cli/run-cli-turn.ts";
import { evidenceFiles } from "../evidence-files.ts";
import {
  codexArguments,
  modelOfConfig,
  modelOfSpec,
  profileOfArgs,
  providerKeyVariable,
} from "./codex-arguments.ts";
import { strictOutputSchema } from "./strict-output-schema.ts";
import { createCodexTranslator } from "./translate-codex.ts";

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
  return { name: "codex", family: providerOf(spec), runTurn: (request) => runCodexTurn(spec, request) };
}

async function runCodexTurn(spec: EngineSpec, request: TurnRequest): Promise<TurnResult> {
  await mkdir(request.turnDirectory, { recursive: true });
  const env = { ...process.env, ...request.env };
  let prices: Record<string, ModelPrice>;
  try {
    prices = priceTable(env);
  } catch (error) {
    return { status: "crashed", text: "", error: (error as Error).message };
  }
  let schemaPath: string | undefined;
  if (request.outputSchema !== undefined) {
    schemaPath = join(request.turnDirectory, `codex-${request.role}-output-schema.json`);
    await writeFile(schemaPath, `${JSON.stringify(strictOutputSchema(request.outputSchema), null, 2)}\n`);
  }
  return runCliTurn({
    request,
    argv: codexArguments({
      role: request.role,
      readOnly: request.readOnly,
      model: spec.model,
      args: spec.args,
      schemaPath,
    }),
    stdin: request.prompt,
    evidence: [...(schemaPath ? [schemaPath] : []), ...evidenceFiles(request.context)],
    programState: [env.CODEX_HOME ?? join(env.HOME ?? homedir(), ".codex")],
    translator: createCodexTranslator({
      model: codexModel(spec, env),
      prices,
      structured: request.readOnly || schemaPath !== undefined,
      dropNulls: schemaPath !== undefined,
    }),
  });
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
