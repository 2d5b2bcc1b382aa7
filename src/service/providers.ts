/**
 * The providers a loop calls, for the service's per-provider caps: parallel agents against one provider
 * are stopped by its rate limits long before the machine runs out of cores.
 */

import { type EngineSpec, reviewerEngine, type Spec } from "../core/spec.ts";
import { providerOf, resolveVerifier } from "../engines/registry.ts";

/**
 * The distinct providers of the loop's maker, verifier and reviewer (`review:`) engines, sorted: claude-code → anthropic, codex →
 * openai, copilot → github (or the provider its model names), builtin → the model id's provider (`local`
 * for an openai-compatible server). Commands and scripted engines call no provider and add none; a
 * verifier `auto` that cannot be resolved here adds none either (the loop itself will say why).
 */
export function providersOf(
  spec: Pick<Spec, "maker" | "verifier"> & Partial<Pick<Spec, "review">>,
): string[] {
  const engines: EngineSpec[] = [spec.maker, ...(spec.review ? [reviewerEngine(spec.review)] : [])];
  try {
    engines.push(resolveVerifier(spec.maker, spec.verifier));
  } catch {
    // No verifier to be found: the run stops at once with the reason, calling no provider.
  }
  const providers = new Set<string>();
  for (const engine of engines) {
    const provider = providerOf(engine);
    if (provider !== "scripted" && provider !== "unknown") providers.add(provider);
  }
  return [...providers].sort();
}
