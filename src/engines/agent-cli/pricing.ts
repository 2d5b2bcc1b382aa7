/**
 * Dollar cost from token usage, for CLIs that report tokens but no price (Codex). The table ships with
 * loopwright (prices.json) and the user can override or extend it with a JSON file named by
 * `$LOOPWRIGHT_PRICES`. Unknown models have no price: the cost stays unknown rather than guessed.
 */
import { readFileSync } from "node:fs";
import { z } from "zod";
import { UsageError } from "../../errors.ts";
import type { TokenUsage } from "../engine.ts";
import shipped from "./prices.json" with { type: "json" };

const priceSchema = z.object({
  input: z.number().nonnegative(),
  output: z.number().nonnegative(),
  cachedInput: z.number().nonnegative().optional(),
});
const tableSchema = z.object({ models: z.record(z.string(), priceSchema) });
export type ModelPrice = z.infer<typeof priceSchema>;

let cached: Record<string, ModelPrice> | undefined;

/** The price table in force: the shipped one, overridden entry by entry by `$LOOPWRIGHT_PRICES`. */
export function priceTable(env: NodeJS.ProcessEnv = process.env): Record<string, ModelPrice> {
  if (cached && !env.LOOPWRIGHT_PRICES) return cached;
  const table = { ...tableSchema.parse(shipped).models };
  if (env.LOOPWRIGHT_PRICES) {
    let text: string;
    try {
      text = readFileSync(env.LOOPWRIGHT_PRICES, "utf8");
    } catch {
      throw new UsageError(`LOOPWRIGHT_PRICES: cannot read ${env.LOOPWRIGHT_PRICES}`);
    }
    const parsed = tableSchema.safeParse(JSON.parse(text));
    if (!parsed.success)
      throw new UsageError(`LOOPWRIGHT_PRICES: ${parsed.error.issues[0]?.message ?? "invalid price table"}`);
    Object.assign(table, parsed.data.models);
    return table;
  }
  cached = table;
  return table;
}

/** The price of a model by the longest matching id prefix, or undefined. */
export function priceOf(model: string, table = priceTable()): ModelPrice | undefined {
  const key = Object.keys(table)
    .filter((prefix) => model.startsWith(prefix))
    .sort((left, right) => right.length - left.length)[0];
  return key ? table[key] : undefined;
}

/** Dollars for a usage on a model; undefined when the model has no price. */
export function costOf(model: string, usage: TokenUsage, table = priceTable()): number | undefined {
  const price = priceOf(model, table);
  if (!price) return undefined;
  const cached = usage.cachedInputTokens ?? 0;
  const fresh = Math.max(0, usage.inputTokens - cached);
  return (
    (fresh * price.input + cached * (price.cachedInput ?? price.input) + usage.outputTokens * price.output) /
    1_000_000
  );
}
