/**
 * The `builtin` engine: loopwright's own agent loop (src/agent) over a model API, as maker (every tool)
 * and as verifier or replanner (read-only tools, the answer as one JSON value in `output`). The agent
 * and the AI SDK load only when a turn runs, so commands that merely build engines stay fast.
 */

import type { Engine } from "../../core/engine.ts";
import type { EngineSpec } from "../../core/spec.ts";
import { withoutZodLocales } from "../../core/zod-without-locales.ts";
import { builtinProvider, builtinSettings } from "./builtin-settings.ts";

/** Builds the engine; a `UsageError` names a malformed model id or an unknown option in `args`. */
export function createBuiltinEngine(spec: EngineSpec, field: string): Engine {
  const settings = builtinSettings(spec, field);
  return {
    name: "builtin",
    family: builtinProvider(spec),
    // The agent's tools and the AI SDK load zod: without its translated messages, as everywhere in a run.
    runTurn: async (request) =>
      (await withoutZodLocales(() => import("./run-builtin-turn.ts"))).runBuiltinTurn(settings, request),
  };
}
