/**
 * Where a dollar cap meets a model loopwright cannot price: engines that report tokens only (codex, the
 * builtin agent) are priced from the price table, so an unnamed or unpriced model leaves
 * `maxCostUsdPerIteration` and `maxCostUsdPerDay` unenforced for its turns. `validate` prints these and
 * the timeline records them (`engines_resolved`).
 */
import { parseModelId } from "../agent/model-id.ts";
import { priceOf, priceTable, priceTableDate } from "../core/pricing.ts";
import type { EngineSpec, Spec } from "../core/spec.ts";
import { builtinSettings } from "./builtin/builtin-settings.ts";
import { codexModel } from "./codex/codex-engine.ts";

/** One warning per engine whose turns a cost cap of `spec` cannot stop; none when the spec has no cap. */
export function unpricedWarnings(
  spec: Spec,
  engines: { role: string; engine: EngineSpec }[],
  env: NodeJS.ProcessEnv = process.env,
): string[] {
  if (spec.budget.maxCostUsdPerIteration <= 0 && spec.budget.maxCostUsdPerDay <= 0) return [];
  const table = priceTable(env);
  const warnings: string[] = [];
  for (const { role, engine } of engines) {
    const model = pricedModel(engine, env);
    if (model === undefined) continue;
    const unenforced = `maxCostUsdPerIteration and maxCostUsdPerDay cannot be enforced for its turns`;
    if (model === null) {
      warnings.push(
        `${role} codex names no model (in the spec, its args or codex's config.toml) and codex does not report which it used: its tokens cannot be priced, so ${unenforced}; name one with \`model:\``,
      );
    } else if (!priceOf(model, table)) {
      warnings.push(
        `${role} ${engine.engine} model ${model} has no price in the price table (checked ${priceTableDate()}): ${unenforced}; add it in a file named by $LOOPWRIGHT_PRICES`,
      );
    }
  }
  return warnings;
}

/** The model an engine is priced by: a name, `null` when it cannot be known, undefined when the table is not used. */
function pricedModel(engine: EngineSpec, env: NodeJS.ProcessEnv): string | null | undefined {
  if (engine.engine === "codex") {
    if (engine.args?.includes("--oss")) return undefined;
    return codexModel(engine, env) ?? null;
  }
  if (engine.engine === "builtin") {
    try {
      return parseModelId(builtinSettings(engine, "engine").model).name;
    } catch {
      return undefined;
    }
  }
  return undefined;
}
