/**
 * The gates' checkout the commit step starts early (loop-git.ts): handed once to the step that asks,
 * only once it has ended, with what the folder held before; a failed one says so; a second one waits
 * for the first. The loop's own use (one checkout per gate phase, setup after a lockfile changed) is in
 * gate-setup-git.test.ts.
 */
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import type { RunContext } from "../src/loop/run-context.ts";
import { startEarlyGateCheckout, takeEarlyGateCheckout } from "../src/loop/steps/loop-git.ts";

const newContext = () => ({}) as RunContext;
const later = <T>(value: T, ms = 20) => new Promise<T>((resolve) => setTimeout(() => resolve(value), ms));

describe("the early gates' checkout", () => {
  it("is handed once, after it ended, with the commit and what the folder held", async () => {
    const context = newContext();
    assert.equal(await takeEarlyGateCheckout(context), undefined);
    let ended = false;
    startEarlyGateCheckout(
      context,
      "b".repeat(40),
      () => later("a".repeat(40)),
      async () => {
        await later(undefined, 50);
        ended = true;
      },
    );
    const taken = await takeEarlyGateCheckout(context);
    assert.equal(ended, true);
    assert.deepEqual(taken, { sha: "b".repeat(40), previous: "a".repeat(40), made: true });
    assert.equal(await takeEarlyGateCheckout(context), undefined);
  });

  it("that failed is handed as not made, with what the folder held before it", async () => {
    const context = newContext();
    startEarlyGateCheckout(
      context,
      "c".repeat(40),
      async () => "a".repeat(40),
      async () => {
        throw new Error("git failed");
      },
    );
    assert.deepEqual(await takeEarlyGateCheckout(context), {
      sha: "c".repeat(40),
      previous: "a".repeat(40),
      made: false,
    });
  });

  it("starts only once the one before it ended", async () => {
    const context = newContext();
    const order: string[] = [];
    startEarlyGateCheckout(
      context,
      "1".repeat(40),
      async () => "0".repeat(40),
      async () => {
        order.push("first started");
        await later(undefined, 50);
        order.push("first ended");
      },
    );
    startEarlyGateCheckout(
      context,
      "2".repeat(40),
      async () => "1".repeat(40),
      async () => {
        order.push("second started");
      },
    );
    assert.deepEqual(await takeEarlyGateCheckout(context), {
      sha: "2".repeat(40),
      previous: "1".repeat(40),
      made: true,
    });
    assert.deepEqual(order, ["first started", "first ended", "second started"]);
  });
});
