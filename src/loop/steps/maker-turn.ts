/**
 * The maker's turn in the loop's worktree, under the iteration's wall-clock limit. A turn interrupted by
 * a dead controller is re-run from the iteration's start commit; whatever it had left is first kept
 * under a ref, so nothing is lost. The turn's cost watchdog gets what the iteration has left of its cap;
 * with nothing left the turn does not start and ends over budget.
 */

import { createEngine } from "../../engines/registry.ts";
import { preserveWork } from "../../git/commits.ts";
import { resetWorktree } from "../../git/worktrees.ts";
import { iterationSpentUsd, nextTurnCap } from "../iteration-spending.ts";
import type { RunContext } from "../run-context.ts";
import { currentIteration } from "../state.ts";
import { buildTurnContext } from "./build-turn-context.ts";

export async function runMakerTurn(context: RunContext, resume: boolean): Promise<void> {
  const state = context.state();
  const iteration = currentIteration(state);
  if (!iteration) throw new Error("no iteration in progress");
  const attempt = iteration.makerAttempts + 1;
  let preservedRef: string | undefined;
  if (resume) {
    const ref = `refs/loopwright/${context.loop.id}/interrupted-${iteration.number}-${iteration.makerAttempts}`;
    const saved = await preserveWork(
      context.makerWorktree,
      ref,
      `loopwright: interrupted maker turn of iteration ${iteration.number}`,
    );
    if (saved) preservedRef = ref;
    await resetWorktree(context.makerWorktree, iteration.startSha);
  }
  await context.append("maker_started", {
    iteration: iteration.number,
    attempt,
    turnNumber: iteration.number,
    preservedRef,
  });
  const cap = nextTurnCap(
    state.spec.budget.maxCostUsdPerIteration,
    iterationSpentUsd(await context.store.readEvents(context.loop.id), iteration.number),
    "maker",
  );
  if (cap.exhausted) {
    await context.append("maker_ended", {
      iteration: iteration.number,
      status: "over_budget",
      account: "",
      error: cap.message,
      durationMs: 0,
      costUsd: 0,
    });
    return;
  }
  const engine = createEngine(state.spec.maker, "maker");
  const started = performance.now();
  const result = await engine.runTurn({
    role: "maker",
    cwd: context.makerWorktree,
    prompt: iteration.brief,
    readOnly: false,
    context: { ...buildTurnContext(state, iteration.number, "maker", context.loop.name) },
    turnNumber: iteration.number,
    wallClockMs: state.spec.budget.wallClockPerIteration,
    maxCostUsd: cap.maxCostUsd,
    turnDirectory: context.layout.iterationDirectory(context.loop.id, iteration.number),
    runId: context.runId,
    stepId: `maker-${iteration.number}-${attempt}`,
    signal: context.cancelSignal,
  });
  await context.append("maker_ended", {
    iteration: iteration.number,
    status: result.status,
    account: context.redact(result.text),
    exitCode: result.exitCode,
    error: result.error ? context.redact(result.error) : undefined,
    durationMs: Math.round(performance.now() - started),
    costUsd: result.costUsd,
    usage: result.usage,
  });
}
