/**
 * Turns an engine entry of the spec into an `Engine`. Engines that later releases add (claude-code,
 * codex, copilot, builtin) register here and nowhere else. `auto` (the verifier's default) picks an
 * available engine of another family than the maker's.
 */
import { UsageError } from "../errors.ts";
import type { EngineSpec } from "../loop/spec.ts";
import { createCommandEngine } from "./command-engine.ts";
import type { Engine } from "./engine.ts";
import { createScriptedEngine } from "./scripted-engine.ts";

/** Engines named in the spec format whose adapters are not part of this release yet. */
const upcoming = new Set(["claude-code", "codex", "copilot", "builtin"]);

export function createEngine(spec: EngineSpec, field: string): Engine {
  switch (spec.engine) {
    case "command":
      if (!spec.run) throw new UsageError(`${field}.run: required for engine command`);
      return createCommandEngine(spec.run);
    case "scripted":
      return createScriptedEngine(spec.turns ?? []);
    case "auto":
      throw new UsageError(`${field}.engine: auto must be resolved against the maker first`);
    default:
      if (upcoming.has(spec.engine)) {
        throw new UsageError(
          `${field}.engine: engine ${spec.engine} is not available in this version of loopwright yet`,
        );
      }
      throw new UsageError(`${field}.engine: unknown engine '${spec.engine}'`);
  }
}

/**
 * The verifier's engine spec with `auto` resolved. A scripted maker (a rehearsal) gets a scripted verifier
 * that rules from the recorded gate results; other makers need an engine of another family, and until the
 * agent engines land there is none to pick, so the user must name one.
 */
export function resolveVerifier(maker: EngineSpec, verifier: EngineSpec): EngineSpec {
  if (verifier.engine !== "auto") return verifier;
  if (maker.engine === "scripted") return { engine: "scripted", turns: [{ verdict: "auto" }] };
  throw new UsageError(
    `verifier.engine: auto found no available engine of another family than the maker's (${maker.engine}); set verifier.engine, e.g. { engine: command, run: ./verify.sh }`,
  );
}
