/**
 * The `claude-code` engine: Anthropic's Claude Code CLI (`claude`, npm `@anthropic-ai/claude-code`)
 * run headless in the turn's worktree with the user's own authentication and configuration. The
 * command line is built in claude-code-arguments.ts, its output read by translate-claude-code.ts.
 * Cost: live from per-message usage (priced with pricing.ts), final from the CLI's `total_cost_usd`.
 */
import { existsSync } from "node:fs";
import { mkdir } from "node:fs/promises";
import { homedir } from "node:os";
import { join } from "node:path";
import type { Engine, TurnRequest, TurnResult } from "../../core/engine.ts";
import { type ModelPrice, priceTable } from "../../core/pricing.ts";
import type { EngineSpec } from "../../core/spec.ts";
import type { AgentCliDefinition, Provider } from "../agent-cli/engine-definition.ts";
import { runCliTurn } from "../agent-cli/run-cli-turn.ts";
import { evidenceFolders } from "../evidence-folders.ts";
import { claudeCodeArguments } from "./claude-code-arguments.ts";
import { claudeCodeTranslator } from "./translate-claude-code.ts";

export const claudeCodeDefinition: AgentCliDefinition = {
  name: "claude-code",
  packageName: "@anthropic-ai/claude-code",
  binary: "claude",
  provider: (spec, env = process.env) => claudeCodeProvider(spec.model ?? env.ANTHROPIC_MODEL),
  costReporting: "live",
  credentials: claudeCodeCredentials,
  create: createClaudeCodeEngine,
};

export function createClaudeCodeEngine(spec: EngineSpec): Engine {
  return {
    name: "claude-code",
    family: claudeCodeProvider(spec.model ?? process.env.ANTHROPIC_MODEL),
    runTurn: (request) => runClaudeCodeTurn(spec, request),
  };
}

async function runClaudeCodeTurn(spec: EngineSpec, request: TurnRequest): Promise<TurnResult> {
  await mkdir(request.turnDirectory, { recursive: true });
  let prices: Record<string, ModelPrice>;
  try {
    prices = priceTable({ ...process.env, ...request.env });
  } catch (error) {
    return { status: "crashed", text: "", error: (error as Error).message };
  }
  const evidence = request.readOnly
    ? await evidenceFolders(request)
    : { directories: [], paths: [], prompt: request.prompt };
  return runCliTurn({
    request,
    argv: ["claude", ...claudeCodeArguments(request, spec, evidence.directories)],
    translator: claudeCodeTranslator({ structured: request.role !== "maker", prices }),
    stdin: evidence.prompt,
    evidence: evidence.paths,
    programState: claudeCodeStateFolders({ ...process.env, ...request.env }),
  });
}

/**
 * The provider of the model Claude Code would call: Anthropic, unless the model names another
 * provider's model (Claude Code can reach those through a gateway at ANTHROPIC_BASE_URL).
 */
export function claudeCodeProvider(model: string | undefined): Provider {
  const name = (model ?? "").toLowerCase();
  if (/(^|[/:.])(gpt-|o\d|codex|chatgpt)/.test(name) || name.startsWith("openai")) return "openai";
  if (/(^|[/:.])gemini/.test(name) || name.startsWith("google")) return "google";
  return "anthropic";
}

/** The credentials Claude Code would find, by name: environment variables and a `claude` login. */
export function claudeCodeCredentials(env: NodeJS.ProcessEnv = process.env): string[] {
  const found = [
    "ANTHROPIC_API_KEY",
    "ANTHROPIC_AUTH_TOKEN",
    "CLAUDE_CODE_OAUTH_TOKEN",
    "CLAUDE_CODE_USE_BEDROCK",
    "CLAUDE_CODE_USE_VERTEX",
  ].filter((name) => Boolean(env[name]));
  const configDirectory = env.CLAUDE_CONFIG_DIR ?? join(env.HOME ?? homedir(), ".claude");
  if (existsSync(join(configDirectory, ".credentials.json")))
    found.push(`claude login (${join(configDirectory, ".credentials.json")})`);
  return found;
}

/** Where Claude Code keeps its login, settings and sessions, and its cache. */
function claudeCodeStateFolders(env: NodeJS.ProcessEnv): string[] {
  const home = env.HOME ?? homedir();
  return [
    env.CLAUDE_CONFIG_DIR ?? join(home, ".claude"),
    join(home, ".claude.json"),
    env.XDG_CACHE_HOME ?? join(home, ".cache"),
  ];
}
