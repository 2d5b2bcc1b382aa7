/** The service's pure decisions: which waiting loops start under the caps, the queue's order, caps and providers parsed. */
import assert from "node:assert/strict";
import { test } from "node:test";
import type { EngineSpec } from "../src/core/spec.ts";
import { parseMaxActive, parseProviderCaps } from "../src/service/caps.ts";
import { chooseStarts } from "../src/service/choose-starts.ts";
import { providersOf } from "../src/service/providers.ts";
import { queueOrder } from "../src/service/queue-order.ts";

const loop = (loopId: string, ...providers: string[]) => ({ loopId, providers });

test("chooseStarts: in order, within the total and per provider; a loop held by its provider does not hold back others", () => {
  const caps = { maxActive: 3, maxPerProvider: { anthropic: 1 } };
  const chosen = chooseStarts(
    [loop("a1", "anthropic"), loop("a2", "anthropic"), loop("o1", "openai"), loop("s1"), loop("s2")],
    [],
    caps,
  );
  assert.deepEqual(
    chosen.map((candidate) => candidate.loopId),
    ["a1", "o1", "s1"],
  );
  assert.deepEqual(
    chooseStarts([loop("a1", "anthropic")], [{ providers: ["anthropic", "openai"] }], caps),
    [],
  );
  assert.deepEqual(
    chooseStarts([loop("s1")], [{ providers: [] }, { providers: [] }, { providers: [] }], caps),
    [],
  );
  assert.equal(
    chooseStarts(
      Array.from({ length: 60 }, (_, index) => loop(`l${index}`)),
      [],
      { maxActive: 0, maxPerProvider: {} },
    ).length,
    60,
    "0: no limit",
  );
  const both = chooseStarts([loop("ao", "anthropic", "openai"), loop("o2", "openai")], [], {
    maxActive: 4,
    maxPerProvider: { openai: 1 },
  });
  assert.deepEqual(
    both.map((candidate) => candidate.loopId),
    ["ao"],
    "a loop of two providers counts against both",
  );
});

test("queueOrder: by the time queued, ties by loop id", () => {
  const entries = [
    { loopId: "b", queuedAt: "2026-12-01T10:00:00.001Z" },
    { loopId: "c", queuedAt: "2026-12-01T10:00:00.000Z" },
    { loopId: "a", queuedAt: "2026-12-01T10:00:00.001Z" },
  ];
  assert.deepEqual(
    queueOrder(entries).map((entry) => entry.loopId),
    ["c", "a", "b"],
  );
});

test("caps are parsed, and bad ones refused naming the entry", () => {
  assert.deepEqual(parseProviderCaps("anthropic=2, openai=1"), { anthropic: 2, openai: 1 });
  assert.deepEqual(parseProviderCaps(undefined), {});
  assert.throws(
    () => parseProviderCaps("anthropic=2,openai"),
    /--max-per-provider: expected provider=count.*"openai"/,
  );
  assert.throws(() => parseProviderCaps("openai=1,openai=2"), /openai is given twice/);
  assert.equal(parseMaxActive(undefined), 4);
  assert.equal(parseMaxActive("0"), 0);
  assert.throws(() => parseMaxActive("-1"), /--max-active: not a whole number: -1/);
});

test("providersOf: the maker's and verifier's providers; commands and scripted engines call none", () => {
  const engine = (spec: EngineSpec) => spec;
  assert.deepEqual(
    providersOf({ maker: engine({ engine: "claude-code" }), verifier: engine({ engine: "codex" }) }),
    ["anthropic", "openai"],
  );
  assert.deepEqual(
    providersOf({
      maker: engine({ engine: "builtin", model: "openai:gpt-5.5" }),
      verifier: engine({ engine: "command", run: "./verify.sh" }),
    }),
    ["openai"],
  );
  assert.deepEqual(
    providersOf({ maker: engine({ engine: "scripted", turns: [] }), verifier: engine({ engine: "auto" }) }),
    [],
  );
  assert.deepEqual(
    providersOf({
      maker: engine({ engine: "builtin", model: "openai-compatible:qwen@http://127.0.0.1:1/v1" }),
      verifier: engine({ engine: "builtin", model: "anthropic:claude-sonnet-4-6" }),
    }),
    ["anthropic", "local"],
  );
  assert.deepEqual(
    providersOf({
      maker: engine({ engine: "command", run: "./agent.sh" }),
      verifier: engine({ engine: "command", run: "./verify.sh" }),
      review: { engine: "codex", rounds: 2, checklist: "" },
    }),
    ["openai"],
    "the reviewer's provider counts too",
  );
});
