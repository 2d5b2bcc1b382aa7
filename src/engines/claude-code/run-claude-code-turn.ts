/** One turn of the `claude-code` engine (claude-code-engine.ts): the CLI run headless, its output translated. */
import { mkdir } from "node:fs/promises";
import { homedir } from "node:os";
import { join } from "node:path";
import type { TurnRequest, TurnResult } from "../../core/engine.ts";
import { type ModelPrice, priceTable } from "../../core/pricing.ts";
import type { EngineSpec } from "../../core/spec.ts";
import { runCliTurn } from "../agent-cli/run-cli-turn.ts";
import { evidenceFolders } from "../evidence-folders.ts";
import { claudeCodeArguments } from "./claude-code-arguments.ts";
import { claudeCodeTranslator } from "./translate-claude-code.ts";

export async function runClaudeCodeTurn(spec: EngineSpec, request: TurnRequest): Promise<TurnResult> {
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

/** Where Claude Code keeps its login, settings and sessions, and its cache. */
function claudeCodeStateFolders(env: NodeJS.ProcessEnv): string[] {
  const home = env.HOME ?? homedir();
  return [
    env.CLAUDE_CONFIG_DIR ?? join(home, ".claude"),
    join(home, ".claude.json"),
    env.XDG_CACHE_HOME ?? join(home, ".cache"),
  ];
}
