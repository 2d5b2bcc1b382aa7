/**
 * What an agent-CLI engine tells the registry about itself: how to find and build it, and which model
 * provider it would use (the verifier is picked from another provider than the maker's).
 */

import type { Engine } from "../../core/engine.ts";
import type { EngineSpec } from "../../core/spec.ts";

export type Provider = "anthropic" | "openai" | "google" | "github" | "local" | "unknown";

export interface AgentCliDefinition {
  name: "claude-code" | "codex" | "copilot";
  /** The npm package to install when the CLI is missing. */
  packageName: string;
  /** The executable looked up on PATH. */
  binary: string;
  /** The provider of the model this engine would use for a spec entry (from `model`, env, or its default). */
  provider(spec: EngineSpec, env?: NodeJS.ProcessEnv): Provider;
  /** Whether the CLI reports usage or cost that a watchdog can enforce `maxCostUsdPerIteration` with. */
  costReporting: "live" | "end-of-turn" | "none";
  /** Credentials found in the environment or the user's config, named (never their values). */
  credentials(env?: NodeJS.ProcessEnv): string[];
  create(spec: EngineSpec): Engine;
}
