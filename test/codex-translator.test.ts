import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { costOf, priceTable } from "../src/core/pricing.ts";
import { gateSchema } from "../src/core/spec.ts";
import { createCodexTranslator } from "../src/engines/codex/translate-codex.ts";
import { parseVerdictOutput } from "../src/verify/verdict.ts";
import { exited, recordedLines, replay as replayLines } from "./support/translator-replay.ts";

/**
 * The codex translator against output recorded from the real `codex exec --json` (codex-cli 0.171.0)
 * driven by the mock-model server: test/fixtures/engines/codex/*.jsonl.
 */
const prices = priceTable({});
const fixture = (name: string) => recordedLines("codex", name);

function replay(
  lines: string[],
  options: { structured?: boolean; dropNulls?: boolean; model?: string } = {},
) {
  const translator = createCodexTranslator({
    model: "model" in options ? options.model : "gpt-5.5",
    prices,
    structured: options.structured ?? false,
    dropNulls: options.dropNulls,
  });
  return replayLines(translator, lines);
}

describe("a maker turn that reads, patches and answers", () => {
  const run = replay(fixture("success-tool-use"));

  test("streams the messages and every tool call as it starts", () => {
    assert.deepEqual(
      run.events.filter((event) => event.type !== "usage"),
      [
        { type: "text", text: "Looking at add.js first." },
        { type: "tool", name: "exec_command", detail: "/bin/bash -lc 'cat add.js'" },
        { type: "tool", name: "apply_patch", detail: "update /tmp/cx/work/add.js" },
        { type: "text", text: "Fixed add: it subtracted instead of adding." },
      ],
    );
  });

  test("knows its cost only at turn.completed, priced from the tokens", () => {
    const usage = { inputTokens: 3700, cachedInputTokens: 200, outputTokens: 150 };
    const expected = costOf("gpt-5.5", usage, prices);
    assert.ok(expected && expected > 0);
    assert.deepEqual(run.costs.slice(0, -1), Array(run.costs.length - 1).fill(undefined));
    assert.equal(run.costs.at(-1), expected);
    assert.deepEqual(run.events.at(-1), { type: "usage", usage, costUsd: expected });
    const result = run.finish(exited(0));
    assert.deepEqual(result, {
      status: "completed",
      text: "Fixed add: it subtracted instead of adding.",
      usage,
      costUsd: expected,
    });
  });

  test("an unpriced model keeps the tokens and leaves the cost unknown", () => {
    const unpriced = replay(fixture("success-tool-use"), { model: "house-model-7" });
    assert.equal(unpriced.costs.at(-1), undefined);
    const result = unpriced.finish(exited(0));
    assert.equal(result.costUsd, undefined);
    assert.equal(result.usage?.outputTokens, 150);
  });

  test("stopped by the cost watchdog, cancelled or out of time: the process half's verdict wins", () => {
    assert.equal(run.finish(exited(null, { overBudget: true })).status, "over_budget");
    assert.equal(run.finish(exited(null, { cancelled: true })).status, "cancelled");
    const timedOut = replay(fixture("success-tool-use").slice(0, 5)).finish(exited(null, { timedOut: true }));
    assert.equal(timedOut.status, "timeout");
    assert.equal(timedOut.text, "Looking at add.js first.");
  });
});

describe("a read-only verifier turn with --output-schema", () => {
  const gates = [gateSchema.parse({ id: "tests", kind: "tests-pass", run: "node --test" })];

  test("its last message is the verdict, with the strict schema's nulls dropped, and the loop accepts it", () => {
    const result = replay(fixture("structured-output"), { structured: true, dropNulls: true }).finish(
      exited(0),
    );
    assert.equal(result.status, "completed");
    assert.ok(result.output);
    assert.deepEqual(JSON.parse(result.output), {
      overall: "pass",
      gates: [
        {
          id: "tests",
          passed: true,
          evidence: [
            { file: "add.js", line: 1 },
            { gate: "tests", quote: "ok 1 - adds" },
          ],
        },
      ],
    });
    const check = parseVerdictOutput(result.output, gates);
    assert.ok(check.valid, JSON.stringify(check));
  });

  test("kept as answered, the nulls would make the verdict invalid", () => {
    const result = replay(fixture("structured-output"), { structured: true }).finish(exited(0));
    assert.match(result.output ?? "", /"reason": null/);
    assert.equal(parseVerdictOutput(result.output ?? "", gates).valid, false);
  });

  test("a maker turn puts no output: its final message is only its account", () => {
    const result = replay(fixture("structured-output")).finish(exited(0));
    assert.equal(result.output, undefined);
    assert.match(result.text, /"overall": "pass"/);
  });
});

describe("failures are infrastructure errors with a one-line reason", () => {
  test("a 500 from the model: turn.failed, crashed with codex's message", () => {
    const result = replay(fixture("api-error-500")).finish(exited(1));
    assert.equal(result.status, "crashed");
    assert.match(result.error ?? "", /experiencing high demand/);
    assert.doesNotMatch(result.error ?? "", /\n/);
  });

  test("a rejected API key: crashed, naming the 401", () => {
    const result = replay(fixture("unauthorized-401")).finish(exited(1));
    assert.equal(result.status, "crashed");
    assert.match(result.error ?? "", /401 Unauthorized: Incorrect API key provided/);
  });

  test("garbage instead of events and no finished turn: crashed, quoting the garbage", () => {
    const result = replay(fixture("garbage-line")).finish(exited(139));
    assert.equal(result.status, "crashed");
    assert.match(
      result.error ?? "",
      /exited with code 139.*1 line\(s\) that are not codex events.*Segmentation fault/,
    );
  });

  test("a stray line inside a turn that completed does not spoil it", () => {
    const lines = fixture("success-tool-use");
    lines.splice(3, 0, "some tool wrote this to codex's stdout");
    const result = replay(lines).finish(exited(0));
    assert.equal(result.status, "completed");
    assert.equal(result.text, "Fixed add: it subtracted instead of adding.");
  });

  test("an unreachable server: codex retries until the wall clock stops it (timeout); killed otherwise, crashed with its last notice", () => {
    const lines = fixture("server-unreachable");
    assert.equal(replay(lines).finish(exited(null, { timedOut: true })).status, "timeout");
    const killed = replay(lines).finish(exited(null));
    assert.equal(killed.status, "crashed");
    assert.match(
      killed.error ?? "",
      /was killed before finishing its turn: Reconnecting\.\.\. waiting for network/,
    );
  });

  test("codex refusing its command line (nothing on stdout): crashed with its error line from stderr", () => {
    // Recorded: codex exec --full-auto (a flag this version does not have).
    const stderrTail = [
      'WARNING: proceeding, even though we could not create PATH aliases: Refusing to create helper binaries under temporary dir "/tmp"',
      "error: unexpected argument '--full-auto' found",
      "",
      "Usage: codex exec [OPTIONS] [PROMPT]",
      "",
      "For more information, try '--help'.",
    ].join("\n");
    const result = replay([]).finish(exited(2, { stderrTail }));
    assert.equal(result.status, "crashed");
    assert.equal(result.error, "codex exited with code 2: error: unexpected argument '--full-auto' found");
  });
});
