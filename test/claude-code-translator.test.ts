/**
 * The claude-code translator against output recorded from the real `claude` CLI (2.1.197) driven by the
 * mock-model server; test/fixtures/engines/claude-code/README.md says how each file was made.
 */
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { priceTable } from "../src/core/pricing.ts";
import type { CliExit } from "../src/engines/agent-cli/cli-translator.ts";
import { claudeCodeTranslator } from "../src/engines/claude-code/translate-claude-code.ts";
import { exited, recordedLines, replay as replayLines } from "./support/translator-replay.ts";

const fixture = (name: string) => recordedLines("claude-code", name);

/** Feeds lines the way the process half does, then finishes with `exit`. */
function replay(lines: string[], exit: CliExit, structured = false) {
  const run = replayLines(claudeCodeTranslator({ structured, prices: priceTable({}) }), lines);
  return { ...run, result: run.finish(exit) };
}

const near = (actual: number | undefined, expected: number) =>
  assert.ok(
    actual !== undefined && Math.abs(actual - expected) < 1e-9,
    `expected ${expected}, got ${actual}`,
  );

describe("claude-code translator", () => {
  it("reads a maker turn that used Read, Edit and Bash: final message, tool calls, tokens, the CLI's cost", () => {
    const { result, events } = replay(fixture("success-tool-use"), exited(0));
    assert.equal(result.status, "completed");
    assert.equal(result.text, "Fixed add() in math.js: it subtracted instead of adding.");
    assert.equal(result.output, undefined);
    assert.equal(result.error, undefined);
    const tools = events.flatMap((event) => (event.type === "tool" ? [`${event.name} ${event.detail}`] : []));
    assert.deepEqual(tools, [
      "Read /tmp/run-claude/work/math.js",
      "Edit /tmp/run-claude/work/math.js",
      "Bash cat math.js",
    ]);
    const texts = events.flatMap((event) => (event.type === "text" ? [event.text] : []));
    assert.deepEqual(texts, [
      "Reading the code.",
      "Fixed add() in math.js: it subtracted instead of adding.",
    ]);
    near(result.costUsd, 0.019725);
    assert.deepEqual(result.usage, { inputTokens: 6700, outputTokens: 155, cachedInputTokens: 1000 });
  });

  it("counts the real output tokens live, before the result, and prices them like the CLI does", () => {
    const lines = fixture("success-tool-use");
    const { events, costs } = replay(lines.slice(0, -1), exited(null));
    const usages = events.flatMap((event) => (event.type === "usage" ? [event] : []));
    // An assistant line only ever shows 1 output token; the message_delta stream events carry 40+60+30+25.
    assert.deepEqual(usages.at(-1)?.usage, { inputTokens: 6700, outputTokens: 155, cachedInputTokens: 1000 });
    near(costs.at(-1), 0.019725);
    const known = costs.filter((cost): cost is number => cost !== undefined);
    assert.ok(known.length > 4, "the cost is known from the first message on");
    assert.deepEqual(
      known,
      [...known].sort((left, right) => left - right),
      "the live cost never goes down",
    );
  });

  it("puts the StructuredOutput answer of a verifier into output as JSON text", () => {
    const { result } = replay(fixture("structured-output"), exited(0), true);
    assert.equal(result.status, "completed");
    assert.deepEqual(JSON.parse(result.output ?? ""), {
      overall: "pass",
      gates: [{ id: "tests", passed: true, evidence: [{ file: "math.js", line: 1 }] }],
    });
    near(result.costUsd, 0.01395);
  });

  it("falls back to the last fenced JSON block when the model never called StructuredOutput", () => {
    const { result } = replay(fixture("no-structured-output"), exited(0), true);
    assert.equal(result.status, "completed");
    assert.deepEqual(JSON.parse(result.output ?? ""), { overall: "pass", gates: [] });
  });

  it("judges an API error 500 a crash even though the CLI says subtype success", () => {
    const lines = fixture("api-error-500");
    assert.match(lines.at(-1) ?? "", /"subtype":"success","is_error":true/);
    const { result } = replay(lines, exited(1));
    assert.equal(result.status, "crashed");
    assert.match(result.error ?? "", /^claude: API Error: 500 scripted server error/);
    assert.doesNotMatch(result.error ?? "", /\n/);
  });

  it("takes the CLI's own turn limit as a finished attempt", () => {
    const { result } = replay(fixture("turn-limit"), exited(1));
    assert.equal(result.status, "completed");
    assert.equal(result.hitTurnLimit, true);
    assert.equal(result.error, undefined);
    near(result.costUsd, 0.0069);
  });

  it("reports the CLI's own budget stop as over budget, with the dollars it counted", () => {
    const { result } = replay(fixture("budget-limit"), exited(1));
    assert.equal(result.status, "over_budget");
    near(result.costUsd, 3.003);
    assert.equal(result.usage?.outputTokens, 200000);
    assert.match(result.error ?? "", /maximum budget/);
  });

  it("judges output that is not stream-json a crash", () => {
    const { result } = replay(fixture("garbage"), exited(0));
    assert.equal(result.status, "crashed");
    assert.match(result.error ?? "", /not stream-json: "Plain text, not stream-json\."/);
  });

  it("judges a stream that ends without a result a crash, naming stderr's last line and keeping the live cost", () => {
    const lines = fixture("success-tool-use").slice(0, -1);
    const { result } = replay(lines, exited(134, { stderrTail: "some context\nSegmentation fault\n" }));
    assert.equal(result.status, "crashed");
    assert.equal(result.error, "claude exited with code 134 without a result: Segmentation fault");
    near(result.costUsd, 0.019725);
  });

  it("reports a killed turn as timeout or cancelled, with what it had said and spent", () => {
    const lines = fixture("success-tool-use").slice(0, 12);
    const timedOut = replay(lines, exited(null, { timedOut: true })).result;
    assert.equal(timedOut.status, "timeout");
    assert.equal(timedOut.text, "Reading the code.");
    assert.ok((timedOut.costUsd ?? 0) > 0);
    assert.equal(replay(lines, exited(null, { cancelled: true })).result.status, "cancelled");
    assert.equal(replay(lines, exited(null, { overBudget: true })).result.status, "over_budget");
  });

  it("keeps going past a stray line when the CLI still delivers its result", () => {
    const lines = fixture("success-tool-use");
    lines.splice(
      5,
      0,
      "(node:123) Warning: something printed to stdout",
      "null",
      "[1,2]",
      '{"type":"assistant"}',
    );
    const { result } = replay(lines, exited(0));
    assert.equal(result.status, "completed");
    near(result.costUsd, 0.019725);
  });

  it("keeps only the last 2 KiB of a long final message as the account", () => {
    const long = `${"a".repeat(3000)}THE END`;
    const line = JSON.stringify({
      type: "result",
      subtype: "success",
      is_error: false,
      result: long,
      total_cost_usd: 0,
    });
    const { result } = replay([line], exited(0));
    assert.equal(result.text.length, 2048);
    assert.ok(result.text.endsWith("THE END"));
  });
});
