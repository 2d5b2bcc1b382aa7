import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { gateSchema } from "../src/core/spec.ts";
import { copilotTranslator, readUsageReport } from "../src/engines/copilot/translate-copilot.ts";
import { parseVerdictOutput } from "../src/verify/verdict.ts";
import { exited, recordedLines, recording, replay as replayLines } from "./support/translator-replay.ts";

/**
 * The copilot translator against output recorded from the real `copilot --output-format json`
 * (@github/copilot 1.0.102, the engine's own arguments) driven by the mock-model server:
 * test/fixtures/engines/copilot. Copilot has no turn limit of its own, so there is no limit case.
 */
const fixture = (name: string) => recording("copilot", name);
const lines = (name: string) => recordedLines("copilot", name);
const replay = (input: string[], structured = false) => replayLines(copilotTranslator({ structured }), input);

describe("a maker turn that patches, runs a command and answers", () => {
  const turn = replay(lines("success-tool-use"));

  test("streams its words and its tool calls with what they touch", () => {
    assert.deepEqual(turn.events, [
      { type: "text", text: "Fixing add()." },
      { type: "tool", name: "apply_patch", detail: "/tmp/copilot-work/math.js" },
      { type: "tool", name: "bash", detail: "cat math.js" },
      { type: "text", text: "Fixed add() in math.js: it added with a minus sign." },
    ]);
  });

  test("ends completed with its last message as the account, and no cost: Copilot reports none", () => {
    const result = turn.finish(exited(0));
    assert.equal(result.status, "completed");
    assert.equal(result.text, "Fixed add() in math.js: it added with a minus sign.");
    assert.equal(result.output, undefined);
    assert.equal(result.costUsd, undefined);
    assert.equal(result.hitTurnLimit, undefined);
    assert.ok(
      turn.costs.every((cost) => cost === undefined),
      "no live cost for the watchdog",
    );
  });

  test("a timeout or a cancel keeps what was said so far", () => {
    const cut = replay(lines("success-tool-use").slice(0, 12));
    assert.deepEqual(cut.finish(exited(null, { timedOut: true })), {
      status: "timeout",
      text: "Fixing add().",
    });
    assert.equal(cut.finish(exited(null, { cancelled: true })).status, "cancelled");
  });

  test("a stray line that is not JSON amid a good stream is skipped", () => {
    const input = lines("success-tool-use");
    input.splice(5, 0, "(node:123) Warning: something on stdout");
    const result = replay(input).finish(exited(0));
    assert.equal(result.status, "completed");
    assert.equal(result.text, "Fixed add() in math.js: it added with a minus sign.");
  });
});

describe("the usage report of --usage-output-file", () => {
  test("has the turn's tokens summed over its calls, cached input included in input", () => {
    assert.deepEqual(readUsageReport(fixture("success-tool-use-usage.json")), {
      usage: { inputTokens: 4900, outputTokens: 95, cachedInputTokens: 800 },
      premiumRequests: 0,
    });
  });

  test("tells nothing when no call was answered, or when it is not a report", () => {
    assert.equal(readUsageReport(fixture("api-error-500-usage.json")), undefined);
    assert.equal(readUsageReport(""), undefined);
    assert.equal(readUsageReport('{"modelMetrics": 3}'), undefined);
  });
});

describe("a read-only verifier turn", () => {
  const turn = replay(lines("structured-output"), true);

  test("its write attempts were refused by the real CLI, its read ran", () => {
    const completions = lines("structured-output")
      .filter((line) => line.includes('"tool.execution_complete"'))
      .map((line) => JSON.parse(line).data);
    assert.deepEqual(
      completions.map((data) => data.success),
      [false, false, true],
    );
    assert.match(completions[0].error.message, /denied.*`write`/);
    assert.deepEqual(
      turn.events.filter((event) => event.type === "tool").map((event) => event.detail),
      ["/tmp/copilot-work/patched.txt", "echo hi > redirected.txt", "cat math.js"],
    );
  });

  test("its answer is the fenced JSON block of its last message, and it is a valid verdict", () => {
    const result = turn.finish(exited(0));
    assert.equal(result.status, "completed");
    assert.match(result.text, /^The fix is right\./);
    const gates = [gateSchema.parse({ id: "tests", kind: "tests-pass", run: "node --test" })];
    const check = parseVerdictOutput(result.output ?? "", gates);
    assert.equal(check.valid, true, JSON.stringify(check));
  });

  test("a maker turn never carries an output, even when its message holds JSON", () => {
    assert.equal(replay(lines("structured-output"), false).finish(exited(0)).output, undefined);
  });
});

describe("failures are infrastructure errors, in one line", () => {
  test("a model answering 500: the CLI retries, then reports a session error", () => {
    const result = replay(lines("api-error-500")).finish(exited(1));
    assert.equal(result.status, "crashed");
    assert.match(
      result.error ?? "",
      /^copilot: Failed to get response from the AI model.*500 mock internal error$/,
    );
    assert.doesNotMatch(result.error ?? "", /\n/);
  });

  test("no login: nothing on stdout, the reason on stderr", () => {
    const result = replay([]).finish(exited(1, { stderrTail: fixture("not-logged-in.stderr.txt") }));
    assert.deepEqual(result, {
      status: "crashed",
      text: "",
      error: "copilot exited with code 1 without a result: Error: No authentication information found.",
    });
  });

  test("text instead of JSON (args that switch the output format) is garbage", () => {
    const result = replay(fixture("text-output.txt").split("\n")).finish(exited(0));
    assert.equal(result.status, "crashed");
    assert.equal(result.error, 'copilot printed output that is not JSON: "hello"');
  });

  test("a stream cut short without its result line is a crash", () => {
    const result = replay(lines("success-tool-use").slice(0, 20)).finish(exited(null));
    assert.equal(result.status, "crashed");
    assert.match(result.error ?? "", /^copilot exited with code null without a result/);
  });

  test("a result whose exit code is not 0 is a crash", () => {
    const input = lines("success-tool-use").map((line) =>
      line.includes('"type":"result"') ? line.replace('"exitCode":0', '"exitCode":2') : line,
    );
    const result = replay(input).finish(exited(0, { stderrTail: "Error: disk full\n" }));
    assert.deepEqual(
      { status: result.status, error: result.error },
      { status: "crashed", error: "copilot exited with code 2: Error: disk full" },
    );
  });
});
