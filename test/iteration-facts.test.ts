/**
 * The dashboard's facts of every iteration at once (for the charts) are the facts of each iteration
 * read alone: same cost, tokens, turns and phase times, whatever the interleaving of the events.
 */
import assert from "node:assert/strict";
import { test } from "node:test";
import type { LoopEvent } from "../src/core/events.ts";
import { iterationFacts, iterationFactsByNumber } from "../src/server/dashboard/iteration-facts.ts";

function event(seq: number, type: string, data: Record<string, unknown>): LoopEvent {
  return { type, seq, at: new Date(Date.UTC(2026, 11, 1, 12, 0, seq)).toISOString(), data } as LoopEvent;
}

test("facts by iteration number equal each iteration's facts read alone", () => {
  const events: LoopEvent[] = [
    event(1, "loop_created", { name: "x", repoRoot: "/r", specPath: "/s", baseSha: "a", branch: "loop/x" }),
    event(2, "gate_started", { iteration: 0, gateId: "tests", phase: "baseline", sha: "a" }),
  ];
  let seq = 3;
  for (let iteration = 1; iteration <= 4; iteration++) {
    events.push(event(seq++, "iteration_started", { iteration, startSha: "a", brief: "b", briefPath: "/b" }));
    events.push(
      event(seq++, "maker_ended", {
        iteration,
        status: "completed",
        account: `try ${iteration}`,
        durationMs: 1000 * iteration,
        costUsd: 0.1 * iteration,
        usage: { inputTokens: 100, outputTokens: 10 },
      }),
    );
    events.push(event(seq++, "gate_started", { iteration, gateId: "tests", phase: "grade", sha: "b" }));
    // An owner's steering lands between gate events: it carries no iteration.
    events.push(event(seq++, "pause_requested", { by: { via: "web", name: "loopback" } }));
    events.push(
      event(seq++, "gate_ended", { iteration, result: { id: "tests", phase: "grade", passed: false } }),
    );
    if (iteration % 2 === 0)
      events.push(
        event(seq++, "verifier_ended", {
          iteration,
          status: "ruled",
          wroteFiles: [],
          durationMs: 500,
          costUsd: 0.05,
          usage: { inputTokens: 50, outputTokens: 5 },
        }),
      );
    events.push(event(seq++, "replan_ended", { iteration, status: "completed", costUsd: 0.01 }));
    events.push(
      event(seq++, "iteration_ended", {
        iteration,
        outcome: "failed",
        failingGates: [],
        repeat: false,
        summary: "",
      }),
    );
  }
  const byNumber = iterationFactsByNumber(events);
  assert.deepEqual([...byNumber.keys()].sort(), [0, 1, 2, 3, 4]);
  for (let iteration = 0; iteration <= 4; iteration++)
    assert.deepEqual(byNumber.get(iteration), iterationFacts(events, iteration), `iteration ${iteration}`);
  assert.equal(byNumber.get(4)?.times.verifierMs, 500);
  assert.equal(byNumber.get(3)?.times.gatesMs, 2000);
});
