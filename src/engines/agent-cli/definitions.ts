/** The agent-CLI engines loopwright knows, in the order `auto` prefers them for a verifier. */
import type { AgentCliDefinition } from "./engine-definition.ts";

export const agentCliDefinitions: AgentCliDefinition[] = [];
