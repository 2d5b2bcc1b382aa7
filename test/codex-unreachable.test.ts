/**
 * Codex retries forever when its model API cannot be reached, printing "Reconnecting..." notices. The
 * engine ends such a turn as an infrastructure error (crashed) within a bound, instead of letting it run
 * to the iteration's wall clock. The real `codex` CLI, pointed at a loopback port nothing listens on.
 */
import assert from "node:assert/strict";
import { mkdtemp, realpath, rm } from "node:fs/promises";
import { connect } from "node:net";
import { tmpdir } from "node:os";
import { delimiter, join } from "node:path";
import { describe, test } from "node:test";
import { priceTable } from "../src/core/pricing.ts";
import { unreachableBound, watchUnreachable } from "../src/engines/agent-cli/unreachable-api.ts";
import { createCodexEngine } from "../src/engines/codex/codex-engine.ts";
import { createCodexTranslator } from "../src/engines/codex/translate-codex.ts";
import { mockClientEnvironment } from "../src/mock-model/client-environment.ts";
import { binaries } from "./support/engine-loops.ts";

/**
 * A loopback port that refuses connections for the whole test. A port freed a moment ago is not: a
 * concurrent test's server can be given it. Ports below 1024 are never handed out by `listen(0)`, so a
 * low port that refuses now keeps refusing.
 */
async function closedPort(): Promise<number> {
  for (const port of [1, 9, 47, 51, 61]) {
    const refused = await new Promise<boolean>((resolve) => {
      const socket = connect(port, "127.0.0.1");
      socket.once("connect", () => {
        socket.destroy();
        resolve(false);
      });
      socket.once("error", () => resolve(true));
    });
    if (refused) return port;
  }
  throw new Error("no refusing low port on 127.0.0.1");
}

const reconnect = JSON.stringify({
  type: "error",
  message: "Reconnecting... waiting for network (Connection failed: error sending request)",
});

describe("codex with an unreachable API", () => {
  test("the translator counts reconnect notices in a row; any other event resets the count", () => {
    const translator = createCodexTranslator({ prices: priceTable({}), structured: false });
    let state = translator.initial();
    const feed = (line: string) => {
      state = translator.line(state, line).state;
    };
    feed('{"type":"thread.started","thread_id":"t"}');
    feed('{"type":"turn.started"}');
    assert.equal(translator.reconnects?.(state), 0);
    for (let count = 1; count <= 3; count++) {
      feed(reconnect);
      assert.equal(translator.reconnects?.(state), count);
    }
    feed('{"type":"item.completed","item":{"type":"agent_message","text":"back"}}');
    assert.equal(translator.reconnects?.(state), 0);
    feed('{"type":"error","message":"stream disconnected before completion"}');
    assert.equal(translator.reconnects?.(state), 0, "other errors are not reconnect notices");
  });

  test("the bound: 4 notices in a row, or 60 s since the first of an unbroken run of them", () => {
    const watch = watchUnreachable("codex", () => "Reconnecting... waiting for network");
    watch.update(1, 0);
    assert.equal(watch.verdict(59_999), undefined);
    assert.match(
      watch.verdict(60_000) ?? "",
      /^codex cannot reach its model API: 1 reconnect notice\(s\) in 60s/,
    );
    watch.update(0, 60_500);
    assert.equal(watch.verdict(200_000), undefined, "any other output ends the run");
    for (const [count, at] of [
      [1, 100_000],
      [2, 100_001],
      [3, 100_002],
    ])
      watch.update(count, at);
    assert.equal(watch.verdict(100_003), undefined);
    watch.update(4, 100_004);
    assert.match(
      watch.verdict(100_004) ?? "",
      /4 reconnect notice\(s\) in 0s and nothing else \(last: Reconnecting/,
    );
  });

  test("a maker turn ends as an infrastructure error well before its wall clock", async () => {
    const root = await realpath(await mkdtemp(join(tmpdir(), "loopwright-codex-unreachable-")));
    try {
      const env = await mockClientEnvironment(`http://127.0.0.1:${await closedPort()}`, join(root, "home"));
      const wallClockMs = 300_000;
      const started = Date.now();
      const result = await createCodexEngine({ engine: "codex", model: "gpt-5.5" }).runTurn({
        role: "maker",
        cwd: root,
        prompt: "Fix the tests.",
        readOnly: false,
        context: {},
        turnNumber: 1,
        wallClockMs,
        maxCostUsd: 0,
        turnDirectory: join(root, "turn"),
        runId: "codex-unreachable",
        stepId: "maker-1",
        env: { ...process.env, ...env, PATH: `${binaries}${delimiter}${process.env.PATH ?? ""}` } as Record<
          string,
          string
        >,
        signal: new AbortController().signal,
      });
      const elapsed = Date.now() - started;
      assert.equal(result.status, "crashed", result.error);
      assert.match(
        result.error ?? "",
        /^codex cannot reach its model API: \d+ reconnect notice\(s\) in \d+s/,
      );
      assert.match(result.error ?? "", /Connection failed/);
      assert.ok(elapsed < unreachableBound.silentMs + 15_000, `ended after ${elapsed} ms`);
      assert.ok(elapsed < wallClockMs / 4, `ended after ${elapsed} ms of a ${wallClockMs} ms wall clock`);
    } finally {
      await rm(root, { recursive: true, force: true });
    }
  });
});
