/** The agent-CLI engines loopwright knows, in the order `auto` prefers them for a verifier. */
import { claudeCodeDefinition } from "../claude-code/claude-code-engine.ts";
import { codexDefinition } from "../codex/codex-engine.ts";
import { copilotDefinition } from "../copilot/copilot-engine.ts";
import type { AgentCliDefinition } from "./engine-definition.ts";

export const agentCliDefinitions: AgentCliDefinition[] = [
  claudeCodeDefinition,
  codexDefinition,
  copilotDefinition,
];
