/**
 * The replanning turn after a first repeated failure: the maker's engine, read-only, in a disposable
 * worktree, asked for a different approach as `{"approach": ..., "hypotheses": [...]}`. It spends from the
 * cap of the iteration it follows: its watchdog gets what that iteration has left, and with nothing left
 * it does not run (the loop goes on without a revised approach).
 */
import { z } from "zod";
import { createEngine } from "../../engines/registry.ts";
import { branchTip } from "../../git/loop-branch.ts";
import { buildBrief } from "../brief.ts";
import { iterationSpentUsd, nextTurnCap } from "../iteration-spending.ts";
import { buildReplannerPrompt } from "../prompts/replanner-prompt.ts";
import type { RunContext } from "../run-context.ts";
import { buildTurnContext } from "./build-turn-context.ts";
import { withScratchWorktree } from "./scratch-worktree.ts";

const replanSchema = z.object({
  approach: z.string().min(1),
  hypotheses: z.array(z.string()).default([]),
  /** One imperative line the loop should follow from now on (kept as a lesson). */
  lesson: z.string().optional(),
});

export async function runReplanTurn(context: RunContext, afterIteration: number): Promise<void> {
  const state = context.state();
  const turnNumber = state.replans.length + 1;
  await context.append("replan_started", { iteration: afterIteration, turnNumber });
  const cap = nextTurnCap(
    state.spec.budget.maxCostUsdPerIteration,
    iterationSpentUsd(await context.store.readEvents(context.loop.id), afterIteration),
    "replanner",
  );
  if (cap.exhausted) {
    await context.append("replan_ended", {
      iteration: afterIteration,
      status: "failed",
      error: cap.message,
      costUsd: 0,
    });
    return;
  }
  const engine = createEngine(state.spec.maker, "maker");
  const prompt = buildReplannerPrompt(buildBrief(state, afterIteration + 1));
  const sha = await branchTip(context.loop.repoRoot, context.state().spec.branch);
  if (!sha) throw new Error(`the loop's branch ${context.state().spec.branch} is missing`);
  const { result } = await withScratchWorktree(context, `replan-${afterIteration}`, sha, (cwd) =>
    engine.runTurn({
      role: "replanner",
      cwd,
      prompt,
      readOnly: true,
      outputSchema: z.toJSONSchema(replanSchema, { io: "input" }),
      context: { ...buildTurnContext(state, afterIteration, "replanner", context.loop.name) },
      turnNumber,
      wallClockMs: state.spec.budget.wallClockPerIteration,
      maxCostUsd: cap.maxCostUsd,
      turnDirectory: context.layout.iterationDirectory(context.loop.id, afterIteration),
      runId: context.runId,
      stepId: `replan-${afterIteration}`,
      signal: context.cancelSignal,
    }),
  );
  const parsed = result.status === "completed" ? parseReplan(result.output ?? result.text) : undefined;
  if (!parsed) {
    const error =
      result.error ?? `the replanner did not answer with {"approach", "hypotheses"} (${result.status})`;
    await context.append("replan_ended", {
      iteration: afterIteration,
      status: "failed",
      error,
      costUsd: result.costUsd,
      usage: result.usage,
    });
    return;
  }
  await context.append("replan_ended", {
    iteration: afterIteration,
    status: "completed",
    approach: parsed.approach,
    hypotheses: parsed.hypotheses,
    ...(parsed.lesson?.trim() ? { lesson: context.redact(parsed.lesson) } : {}),
    costUsd: result.costUsd,
    usage: result.usage,
  });
}

/** Reads the replanner's JSON: the whole output, or the last fenced JSON block in it. */
function parseReplan(output: string): z.infer<typeof replanSchema> | undefined {
  const fenced = [...output.matchAll(/```(?:json)?\s*\n([\s\S]*?)```/g)].at(-1)?.[1];
  for (const candidate of [output.trim(), fenced?.trim()]) {
    if (!candidate) continue;
    try {
      const parsed = replanSchema.safeParse(JSON.parse(candidate));
      if (parsed.success) return parsed.data;
    } catch {
      // not JSON: try the next candidate
    }
  }
  return undefined;
}
