/**
 * The built-in agent's pure rules: model ids, the engine's settings from a spec entry, when a model call
 * is retried and after how long, how a read-only command line is split and judged, and truncation.
 */
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { parseModelId } from "../src/agent/model-id.ts";
import { retryDelayMs } from "../src/agent/retry-policy.ts";
import { refusal, splitCommandLine } from "../src/agent/tools/command-allowlist.ts";
import { truncateOutput } from "../src/agent/truncate-output.ts";
import { builtinSettings } from "../src/engines/builtin/builtin-settings.ts";
import { createEngine, providerOf } from "../src/engines/registry.ts";
import { UsageError } from "../src/errors.ts";

describe("model ids", () => {
  it("reads provider, model and an openai-compatible server", () => {
    assert.deepEqual(parseModelId("anthropic:claude-sonnet-4-6"), {
      provider: "anthropic",
      name: "claude-sonnet-4-6",
    });
    assert.deepEqual(parseModelId("openai:gpt-5.5"), { provider: "openai", name: "gpt-5.5" });
    assert.deepEqual(parseModelId("openai-compatible:qwen3-coder:30b@http://127.0.0.1:11434/v1/"), {
      provider: "openai-compatible",
      name: "qwen3-coder:30b",
      baseUrl: "http://127.0.0.1:11434/v1",
    });
    assert.deepEqual(parseModelId("claude-opus-4-1"), { provider: "anthropic", name: "claude-opus-4-1" });
  });

  it("rejects what it cannot place, saying what a valid id looks like", () => {
    assert.throws(() => parseModelId("llama3"), /name a provider, e\.g\. anthropic:claude-sonnet-4-6/);
    assert.throws(() => parseModelId("openai-compatible:qwen3-coder"), /needs its server/);
    assert.throws(() => parseModelId("openai:"), /model name is missing/);
  });
});

describe("the builtin engine's spec entry", () => {
  it("takes the model id from model and the agent's flags from args", () => {
    const settings = builtinSettings(
      { model: "openai:gpt-5.5", args: ["--max-turns", "12", "--context-window=64000"] },
      "maker",
    );
    assert.equal(settings.maxTurns, 12);
    assert.equal(settings.contextWindow, 64_000);
    assert.equal(builtinSettings({}, "maker").model, "anthropic:claude-sonnet-4-6");
  });

  it("names the field of a mistake, through the registry too", () => {
    assert.throws(
      () => builtinSettings({ args: ["--turbo"] }, "maker"),
      /maker\.args: unknown option "--turbo"/,
    );
    assert.throws(() => builtinSettings({ args: ["--max-turns", "many"] }, "maker"), /takes a whole number/);
    assert.throws(
      () => createEngine({ engine: "builtin", model: "mystery" }, "verifier"),
      (error: unknown) =>
        error instanceof UsageError && /^verifier\.model: model "mystery"/.test(error.message),
    );
  });

  it("reports the model's provider, so auto picks a verifier of another", () => {
    assert.equal(providerOf({ engine: "builtin", model: "openai:gpt-5.5" }), "openai");
    assert.equal(providerOf({ engine: "builtin" }), "anthropic");
    assert.equal(providerOf({ engine: "builtin", model: "openai-compatible:q@http://h/v1" }), "local");
    assert.equal(createEngine({ engine: "builtin", model: "openai:gpt-5.5" }, "maker").family, "openai");
  });
});

describe("retries", () => {
  it("retries only 429 and 529", () => {
    for (const status of [400, 401, 404, 500, 502, 503, undefined])
      assert.equal(retryDelayMs(status, {}, 1), undefined);
    assert.equal(retryDelayMs(429, {}, 1), 1000);
    assert.equal(retryDelayMs(529, {}, 3), 4000);
    assert.equal(retryDelayMs(529, {}, 20), 30_000, "the backoff is capped");
  });

  it("honours retry-after in seconds, as an HTTP date, and retry-after-ms", () => {
    const now = Date.parse("2026-01-01T00:00:00Z");
    assert.equal(retryDelayMs(429, { "retry-after": "7" }, 1, now), 7000);
    assert.equal(retryDelayMs(429, { "Retry-After": "Thu, 01 Jan 2026 00:00:12 GMT" }, 1, now), 12_000);
    assert.equal(retryDelayMs(429, { "retry-after-ms": "250", "retry-after": "9" }, 1, now), 250);
    assert.equal(retryDelayMs(429, { "retry-after": "3600" }, 1, now), undefined, "an hour away: give up");
  });
});

describe("read-only command lines", () => {
  it("splits words and quotes without a shell", () => {
    assert.deepEqual(splitCommandLine(`git log --format="%h %s" -n 3 'a b'`), {
      ok: true,
      argv: ["git", "log", "--format=%h %s", "-n", "3", "a b"],
    });
    assert.equal(splitCommandLine("ls > out").ok, false);
    assert.equal(splitCommandLine('echo "$HOME"').ok, false);
    assert.equal(splitCommandLine("grep 'unclosed").ok, false);
  });

  it("allows read-only subcommands and refuses options that write or run programs", () => {
    assert.equal(refusal(["git", "diff", "HEAD~1", "--stat"]), undefined);
    assert.match(refusal(["git", "-c", "x=y", "log"]) ?? "", /git -c is not allowed/);
    assert.match(refusal(["git", "grep", "-O", "x"]) ?? "", /-O is not allowed/);
    assert.match(refusal(["find", ".", "-exec", "rm", "{}", ";"]) ?? "", /-exec/);
    assert.match(refusal(["node", "--test"]) ?? "", /node is not an allowed command/);
    assert.match(refusal(["constructor"]) ?? "", /not an allowed command/);
  });
});

describe("truncation", () => {
  const more = () => "Read on.";
  it("keeps whole lines from the head or the tail and says what was cut", () => {
    const text = Array.from({ length: 10 }, (_, index) => `l${index + 1}`).join("\n");
    assert.equal(
      truncateOutput(text, { maxChars: 100, maxLines: 3 }, "head", more),
      "l1\nl2\nl3\n[output truncated: showing lines 1-3 of 10, 22 characters cut. Read on.]",
    );
    assert.equal(
      truncateOutput(text, { maxChars: 100, maxLines: 2 }, "tail", more),
      "[output truncated: showing lines 9-10 of 10, 24 characters cut. Read on.]\nl9\nl10",
    );
    assert.equal(truncateOutput(text, { maxChars: 100, maxLines: 10 }, "head", more), text);
  });

  it("cuts inside a single line longer than the limit", () => {
    const result = truncateOutput("x".repeat(500), { maxChars: 100, maxLines: 10 }, "head", more);
    assert.match(
      result,
      /^x{80} \[line cut\]\n\[output truncated: showing lines 1-1 of 1, 4\d\d characters cut\. Read on\.\]$/,
    );
  });
});
