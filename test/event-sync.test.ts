/**
 * The controller's flush policy: the events a resume can redo wait for the next flush; every event that
 * starts or ends something costly or outside the machine (an agent turn, a pull request), stops the loop
 * or ends the run, or records a flag or an owner's request is flushed as it is appended.
 */
import assert from "node:assert/strict";
import { test } from "node:test";
import type { EventType } from "../src/core/events.ts";
import { defersSync } from "../src/loop/event-sync.ts";

test("turns, stops, run ends, flags, requests and outside actions are flushed when appended", () => {
  const flushed: EventType[] = [
    "loop_created",
    "maker_started",
    "maker_ended",
    "verifier_started",
    "verifier_ended",
    "review_started",
    "review_ended",
    "replan_started",
    "replan_ended",
    "tamper_flagged",
    "steering_applied",
    "cancel_requested",
    "pause_requested",
    "loop_paused",
    "loop_finished",
    "pull_request_recorded",
    "loop_stopped",
    "run_ended",
  ];
  for (const type of flushed) assert.equal(defersSync(type), false, type);
});

test("the steps a resume redoes wait for the next flush", () => {
  const deferred: EventType[] = [
    "run_started",
    "loop_prepared",
    "iteration_started",
    "commit_created",
    "change_screened",
    "gate_started",
    "gate_ended",
    "iteration_ended",
  ];
  for (const type of deferred) assert.equal(defersSync(type), true, type);
});
