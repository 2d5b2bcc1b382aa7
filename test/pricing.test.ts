/**
 * The shipped price table against the providers' published prices, and model ids as users and CLIs
 * spell them (dated snapshots, aliases, provider prefixes).
 */
import assert from "node:assert/strict";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, test } from "node:test";
import { costOf, priceOf, priceTable, priceTableDate } from "../src/core/pricing.ts";

/**
 * Published standard-tier prices, US dollars per million tokens: [input, cache hit, output].
 * Anthropic: https://platform.claude.com/docs/en/about-claude/pricing ("Model pricing" table).
 * OpenAI: https://developers.openai.com/api/docs/pricing (standard tier), as quoted by its readers in
 * 2026 (deploybase.ai, aumiqx.com, morphllm.com); checked 2026-12-01.
 */
const published: Record<string, [number, number, number]> = {
  "claude-opus-4-1": [15, 1.5, 75],
  "claude-opus-4": [15, 1.5, 75],
  "claude-opus-4-5": [5, 0.5, 25],
  "claude-opus-4-6": [5, 0.5, 25],
  "claude-sonnet-4-6": [3, 0.3, 15],
  "claude-sonnet-4-5": [3, 0.3, 15],
  "claude-sonnet-4": [3, 0.3, 15],
  "claude-3-7-sonnet": [3, 0.3, 15],
  "claude-haiku-4-5": [1, 0.1, 5],
  "claude-3-5-haiku": [0.8, 0.08, 4],
  "gpt-5.5": [5, 0.5, 30],
  "gpt-5": [1.25, 0.125, 10],
  "gpt-5-mini": [0.25, 0.025, 2],
  "gpt-5-nano": [0.05, 0.005, 0.4],
  "gpt-4.1": [2, 0.5, 8],
  "gpt-4.1-mini": [0.4, 0.1, 1.6],
  "gpt-4o": [2.5, 1.25, 10],
  o3: [2, 0.5, 8],
  "o4-mini": [1.1, 0.275, 4.4],
};

const table = priceTable({});

describe("price table", () => {
  test("is dated", () => {
    assert.match(priceTableDate(), /^\d{4}-\d{2}-\d{2}$/);
  });

  for (const [model, [input, cachedInput, output]] of Object.entries(published)) {
    test(`${model} costs what its provider publishes`, () => {
      assert.deepEqual(priceOf(model, table), { input, cachedInput, output });
    });
  }

  test("dated ids, aliases, provider prefixes and context tags find their model", () => {
    const cases: [string, string][] = [
      ["claude-opus-4-1-20250805", "claude-opus-4-1"],
      ["claude-opus-4-20250514", "claude-opus-4"],
      ["claude-opus-4-0", "claude-opus-4"],
      ["claude-3-7-sonnet-20250219", "claude-3-7-sonnet"],
      ["claude-3-7-sonnet-latest", "claude-3-7-sonnet"],
      ["claude-sonnet-4-5-20250929", "claude-sonnet-4-5"],
      ["claude-sonnet-4-6[1m]", "claude-sonnet-4-6"],
      ["anthropic/claude-opus-4-1", "claude-opus-4-1"],
      ["us.anthropic.claude-opus-4-1-20250805-v1:0", "claude-opus-4-1"],
      ["claude-opus-4-1@20250805", "claude-opus-4-1"],
      ["gpt-4.1-mini-2025-04-14", "gpt-4.1-mini"],
      ["o3-2025-04-16", "o3"],
      ["openai/gpt-4o", "gpt-4o"],
      ["GPT-5-nano", "gpt-5-nano"],
    ];
    for (const [id, model] of cases) assert.deepEqual(priceOf(id, table), priceOf(model, table), id);
  });

  test("Opus 4.5 is not priced as Opus 4, nor gpt-4.1-mini as gpt-4.1", () => {
    assert.equal(priceOf("claude-opus-4-5-20251101", table)?.input, 5);
    assert.equal(priceOf("claude-opus-4-20250514", table)?.input, 15);
    assert.equal(priceOf("gpt-4.1-mini", table)?.input, 0.4);
  });

  test("an unknown model has no price, even when a known id starts it", () => {
    for (const id of ["gpt-5.9-turbo", "claude-opus-4-9", "house-model-7", "o3-pro-deep"]) {
      assert.equal(priceOf(id, table), undefined, id);
      assert.equal(costOf(id, { inputTokens: 1000, outputTokens: 1000 }, table), undefined, id);
    }
  });

  test("prices a usage: fresh input, cache hits and output", () => {
    const cost = costOf(
      "claude-opus-4-1-20250805",
      { inputTokens: 2_000_000, cachedInputTokens: 1_000_000, outputTokens: 1_000_000 },
      table,
    );
    assert.equal(cost, 15 + 1.5 + 75);
  });

  test("$LOOPWRIGHT_PRICES adds and overrides entries, matched like the shipped ones", () => {
    const folder = mkdtempSync(join(tmpdir(), "loopwright-prices-"));
    const path = join(folder, "prices.json");
    writeFileSync(
      path,
      JSON.stringify({ models: { "house-model": { input: 1, output: 2 }, o3: { input: 9, output: 9 } } }),
    );
    const custom = priceTable({ LOOPWRIGHT_PRICES: path });
    assert.equal(priceOf("house-model-20260101", custom)?.output, 2);
    assert.equal(priceOf("o3", custom)?.input, 9);
    assert.equal(priceOf("gpt-4o", custom)?.input, 2.5);
  });

  test("$LOOPWRIGHT_PRICES of the wrong shape is refused with the field that is wrong", () => {
    const folder = mkdtempSync(join(tmpdir(), "loopwright-prices-"));
    const path = join(folder, "prices.json");
    const refused = (table: unknown, message: string) => {
      writeFileSync(path, JSON.stringify(table));
      assert.throws(() => priceTable({ LOOPWRIGHT_PRICES: path }), {
        message: `LOOPWRIGHT_PRICES: ${message}`,
      });
    };
    refused({ models: { m: { input: -1, output: 2 } } }, "models.m.input: expected a number at least 0");
    refused({ models: { m: { input: 1 } } }, "models.m.output: expected a number at least 0");
    refused(
      { models: { m: { input: 1, output: 2, cachedInput: "x" } } },
      "models.m.cachedInput: expected a number at least 0",
    );
    refused({ models: [] }, "models: expected an object");
    refused({}, "models: expected an object");
    refused({ models: {}, aliases: { a: 3 } }, "aliases.a: expected a string");
    refused({ models: {}, checkedOn: 1 }, "checkedOn: expected a string");
    writeFileSync(path, JSON.stringify({ models: { m: { input: 1, output: 2, cachedInput: 0.5 } } }));
    assert.equal(priceOf("m", priceTable({ LOOPWRIGHT_PRICES: path }))?.cachedInput, 0.5);
  });
});
