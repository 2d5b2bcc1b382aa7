/**
 * Turns an engine entry of the spec into an `Engine`, and resolves `auto` (the verifier's default) to an
 * installed engine whose model comes from another provider than the maker's. Agent-CLI engines register
 * in agent-cli/definitions.ts; `builtin` is loopwright's own agent (builtin/builtin-engine.ts).
 */

import type { Engine } from "../core/engine.ts";
import type { EngineSpec } from "../core/spec.ts";
import { UsageError } from "../errors.ts";
import { findExecutable } from "../process/find-executable.ts";
import { agentCliDefinitions } from "./agent-cli/definitions.ts";
import type { AgentCliDefinition, Provider } from "./agent-cli/engine-definition.ts";
import { createBuiltinEngine } from "./builtin/builtin-engine.ts";
import { builtinProvider } from "./builtin/builtin-settings.ts";
import { createCommandEngine } from "./command-engine.ts";
import { engineCredentials } from "./engine-credentials.ts";
import { createScriptedEngine } from "./scripted-engine.ts";

/** Engines named in the spec format whose adapters are not part of this release yet. */
const upcoming = new Set<string>();

export function agentCliDefinition(name: string): AgentCliDefinition | undefined {
  return agentCliDefinitions.find((definition) => definition.name === name);
}

/** Builds the engine; a `UsageError` names what is missing (a command, a CLI and its npm package). */
export function createEngine(spec: EngineSpec, field: string): Engine {
  switch (spec.engine) {
    case "command":
      if (!spec.run) throw new UsageError(`${field}.run: required for engine command`);
      return createCommandEngine(spec.run);
    case "scripted":
      return createScriptedEngine(spec.turns ?? []);
    case "builtin":
      return createBuiltinEngine(spec, field);
    case "auto":
      throw new UsageError(`${field}.engine: auto must be resolved against the maker first`);
  }
  const definition = agentCliDefinition(spec.engine);
  if (definition) {
    if (!findExecutable(definition.binary)) {
      throw new UsageError(
        `${field}.engine: ${spec.engine} needs the \`${definition.binary}\` CLI on PATH: npm install -g ${definition.packageName}`,
      );
    }
    return definition.create(spec);
  }
  if (upcoming.has(spec.engine)) {
    throw new UsageError(
      `${field}.engine: engine ${spec.engine} is not available in this version of loopwright yet`,
    );
  }
  throw new UsageError(`${field}.engine: unknown engine '${spec.engine}'`);
}

/**
 * Loads the code the engine entry's turns run on, for a caller waiting on something else (a run, on
 * git while it creates the loop). Never rejects: an engine that cannot be built loads nothing.
 */
export async function preloadTurn(spec: EngineSpec): Promise<void> {
  try {
    await createEngine(spec, "engine").preload?.();
  } catch {}
}

/** The provider of the model an engine entry would use; `unknown` for commands. */
export function providerOf(spec: EngineSpec): Provider | "scripted" {
  if (spec.engine === "scripted") return "scripted";
  if (spec.engine === "builtin") return builtinProvider(spec);
  return agentCliDefinition(spec.engine)?.provider(spec) ?? "unknown";
}

export interface VerifierChoice {
  spec: EngineSpec;
  /** Set when the only choice shares the maker's provider: the loop records it as a warning. */
  warning?: string;
}

/**
 * The verifier's engine with `auto` resolved. A scripted maker (a rehearsal) gets a scripted verifier that
 * rules from the recorded gate results. Otherwise, among the installed agent CLIs that find credentials
 * (one that cannot authenticate would fail every verdict): the first whose provider differs from the
 * maker's; failing that, one of the same provider, with a warning; failing that, an error — a loop
 * never proceeds without a verifier.
 */
export function chooseVerifier(
  maker: EngineSpec,
  verifier: EngineSpec,
  env: NodeJS.ProcessEnv = process.env,
): VerifierChoice {
  if (verifier.engine !== "auto") return { spec: verifier };
  if (maker.engine === "scripted") return { spec: { engine: "scripted", turns: [{ verdict: "auto" }] } };
  const makerProvider = providerOf(maker);
  const present = agentCliDefinitions.filter((definition) => findExecutable(definition.binary, env));
  const installed = present.filter(
    (definition) => engineCredentials({ engine: definition.name }, env)?.length !== 0,
  );
  if (present.length > 0 && installed.length === 0) {
    throw new UsageError(
      `verifier.engine: auto found ${present.map((definition) => definition.name).join(", ")} installed but none finds credentials to call its model with (\`loopwright doctor\` shows what each looks for); log one in or set verifier.engine`,
    );
  }
  // A provider we cannot name (Copilot's server-side default is "github") may well be the maker's: last resort.
  const known = (provider: string) => provider !== "unknown" && provider !== "github";
  const other = installed.find((definition) => {
    const provider = definition.provider({ engine: definition.name });
    return known(provider) && provider !== makerProvider;
  });
  if (other) return { spec: { engine: other.name } };
  const unnamed = installed.find((definition) => !known(definition.provider({ engine: definition.name })));
  if (unnamed) {
    return {
      spec: { engine: unnamed.name },
      warning: `no installed engine is known to use another provider than the maker's (${makerProvider}); ${unnamed.name}'s model provider cannot be told, it may be the same`,
    };
  }
  const same = installed[0];
  if (same) {
    return {
      spec: { engine: same.name },
      warning: `no installed engine uses another provider than the maker's (${makerProvider}); the verifier ${same.name} shares it`,
    };
  }
  throw new UsageError(
    `verifier.engine: auto found no installed agent CLI (claude, codex, copilot) to verify with; install one or set verifier.engine, e.g. { engine: command, run: ./verify.sh }`,
  );
}

/** `chooseVerifier` without the warning, for callers that only need the spec. */
export function resolveVerifier(
  maker: EngineSpec,
  verifier: EngineSpec,
  env: NodeJS.ProcessEnv = process.env,
): EngineSpec {
  return chooseVerifier(maker, verifier, env).spec;
}
