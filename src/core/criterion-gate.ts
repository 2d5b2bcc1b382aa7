/**
 * The agent-check gates `strategy: tasks` gives the current task's acceptance criteria. No schema
 * library here: replaying a timeline (`ls`, `show`, the hooks) builds them without loading zod.
 */
import type { GateSpec } from "./spec.ts";

/** Gate ids `strategy: tasks` gives the current task's acceptance criteria (`criterion-1`, ...). */
export const criterionGatePrefix = "criterion-";

/** An agent-check gate with the defaults `gateSchema` gives one (test/startup-lazy.test.ts holds them equal). */
export function criterionGate(id: string, assert: string): GateSpec {
  return {
    id,
    kind: "agent-check",
    assert,
    timeout: 600_000,
    required: true,
    parallel: true,
    baseline: "strict",
    flaky: "block",
    rerun: 1,
  };
}
