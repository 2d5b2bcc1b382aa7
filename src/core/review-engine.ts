/**
 * The reviewer's engine entry, apart from spec.ts so that a loop controller reaching its first maker turn
 * (which reads the reviewer's engine for its notes) loads no schema library. spec.ts re-exports it.
 */
import type { EngineSpec, ReviewSpec } from "./spec.ts";

/** The reviewer's engine entry (the review fields without rounds and checklist). */
export function reviewerEngine(review: ReviewSpec): EngineSpec {
  const { rounds: _rounds, checklist: _checklist, ...engine } = review;
  return engine;
}
