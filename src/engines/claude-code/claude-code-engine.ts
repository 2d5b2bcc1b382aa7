/**
 * The `claude-code` engine: Anthropic's Claude Code CLI (`claude`, npm `@anthropic-ai/claude-code`)
 * run headless in the turn's worktree with the user's own authentication and configuration. The
 * command line is built in claude-code-arguments.ts, its output read by translate-claude-code.ts.
 * Cost: live from per-message usage (priced with pricing.ts), final from the CLI's `total_cost_usd`.
 * A turn runs in run-claude-code-turn.ts, loaded at the first turn: checking a spec loads none of it.
 */

import { homedir } from "node:os";
import { join } from "node:path";
import type { Engine } from "../../core/engine.ts";
import type { EngineSpec } from "../../core/spec.ts";
import { existsSync } from "../../files/node-fs.ts";
import type { AgentCliDefinition, Provider } from "../agent-cli/engine-definition.ts";

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
    runTurn: async (request) => (await import("./run-claude-code-turn.ts")).runClaudeCodeTurn(spec, request),
  };
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
