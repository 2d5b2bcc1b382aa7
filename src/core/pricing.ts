/**
 * Dollar cost from token usage, for CLIs that report tokens but no price (Codex) and for the built-in
 * agent. The table ships with loopwright (prices.json, dated, from the providers' published prices) and
 * the user can override or extend it with a JSON file named by `$LOOPWRIGHT_PRICES`. A model id is
 * matched exactly once its spelling is normalized (see `canonicalModelId`), never by prefix: unknown
 * models have no price, and the cost stays unknown rather than guessed from a cousin.
 */

import { UsageError } from "../errors.ts";
import { readFileSync } from "../files/node-fs.ts";
import type { TokenUsage } from "./engine.ts";
import shipped from "./prices.json" with { type: "json" };

/** Dollars per million tokens. */
export interface ModelPrice {
  input: number;
  output: number;
  cachedInput?: number;
}

interface PriceFile {
  checkedOn?: string;
  aliases?: Record<string, string>;
  models: Record<string, ModelPrice>;
}

/**
 * Checks a price file's shape (written by hand rather than with zod: this module is loaded by every
 * engine, and zod's load alone is a third of a loop controller's start). Throws the first problem.
 */
function parsePriceFile(value: unknown): PriceFile {
  const record = (at: string, candidate: unknown): Record<string, unknown> => {
    if (typeof candidate !== "object" || candidate === null || Array.isArray(candidate))
      throw new Error(`${at}: expected an object`);
    return candidate as Record<string, unknown>;
  };
  const file = record("the table", value);
  if (file.checkedOn !== undefined && typeof file.checkedOn !== "string")
    throw new Error("checkedOn: expected a string");
  const aliases = file.aliases === undefined ? undefined : record("aliases", file.aliases);
  for (const [name, target] of Object.entries(aliases ?? {}))
    if (typeof target !== "string") throw new Error(`aliases.${name}: expected a string`);
  const models = record("models", file.models);
  for (const [name, price] of Object.entries(models)) {
    const fields = record(`models.${name}`, price);
    for (const field of ["input", "output", "cachedInput"]) {
      const amount = fields[field];
      if (amount === undefined && field === "cachedInput") continue;
      if (typeof amount !== "number" || !Number.isFinite(amount) || amount < 0)
        throw new Error(`models.${name}.${field}: expected a number at least 0`);
    }
  }
  return file as unknown as PriceFile;
}

/** Prices by canonical model id. An alias entry (`aliases` in the JSON) points at another id. */
export type PriceTable = Record<string, ModelPrice>;

let cached: PriceTable | undefined;

/** The day (YYYY-MM-DD) the shipped prices were last checked against the providers' pages. */
export function priceTableDate(): string {
  return parsePriceFile(shipped).checkedOn ?? "unknown";
}

/** The price table in force: the shipped one, overridden entry by entry by `$LOOPWRIGHT_PRICES`. */
export function priceTable(env: NodeJS.ProcessEnv = process.env): PriceTable {
  if (cached && !env.LOOPWRIGHT_PRICES) return cached;
  const table = expand(parsePriceFile(shipped));
  if (env.LOOPWRIGHT_PRICES) {
    let text: string;
    try {
      text = readFileSync(env.LOOPWRIGHT_PRICES, "utf8");
    } catch {
      throw new UsageError(`LOOPWRIGHT_PRICES: cannot read ${env.LOOPWRIGHT_PRICES}`);
    }
    let value: unknown;
    try {
      value = JSON.parse(text);
    } catch {
      throw new UsageError(`LOOPWRIGHT_PRICES: ${env.LOOPWRIGHT_PRICES} is not JSON`);
    }
    let parsed: PriceFile;
    try {
      parsed = parsePriceFile(value);
    } catch (error) {
      throw new UsageError(`LOOPWRIGHT_PRICES: ${error instanceof Error ? error.message : String(error)}`);
    }
    Object.assign(table, expand(parsed));
    return table;
  }
  cached = table;
  return table;
}

/**
 * A model id as the price table spells it: lower case, without a provider prefix (`anthropic/`,
 * `openai/`, Bedrock's `us.anthropic.`), a context tag (`[1m]`), a Bedrock version (`-v1:0`), a date
 * (`-20250805`, `-2025-04-16`, `@20250805`) or `-latest`.
 */
export function canonicalModelId(model: string): string {
  return model
    .trim()
    .toLowerCase()
    .replace(/^(?:[a-z]{2,4}\.)?anthropic\./, "")
    .replace(/^(?:anthropic|openai)\//, "")
    .replace(/\[[^\]]*\]$/, "")
    .replace(/-v\d+(?::\d+)?$/, "")
    .replace(/@\d{8}$/, "")
    .replace(/-(?:\d{8}|\d{4}-\d{2}-\d{2})$/, "")
    .replace(/-latest$/, "");
}

/** The price of a model, or undefined when the table does not know it. */
export function priceOf(model: string, table = priceTable()): ModelPrice | undefined {
  return Object.hasOwn(table, canonicalModelId(model)) ? table[canonicalModelId(model)] : undefined;
}

/** Dollars for a usage on a model; undefined when the model has no price. */
export function costOf(model: string, usage: TokenUsage, table = priceTable()): number | undefined {
  const price = priceOf(model, table);
  if (!price) return undefined;
  const cachedTokens = usage.cachedInputTokens ?? 0;
  const fresh = Math.max(0, usage.inputTokens - cachedTokens);
  return (
    (fresh * price.input +
      cachedTokens * (price.cachedInput ?? price.input) +
      usage.outputTokens * price.output) /
    1_000_000
  );
}

/** The table's entries keyed by canonical id, aliases resolved to the entry they name. */
function expand(table: PriceFile): PriceTable {
  const result: PriceTable = {};
  for (const [model, price] of Object.entries(table.models)) result[canonicalModelId(model)] = price;
  for (const [alias, target] of Object.entries(table.aliases ?? {})) {
    const price = result[canonicalModelId(target)];
    if (price) result[canonicalModelId(alias)] = price;
  }
  return result;
}
