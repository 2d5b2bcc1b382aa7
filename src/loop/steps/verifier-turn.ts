/**
 * The verifier's turn: a blank, read-only session on another engine, in a disposable worktree of the
 * graded SHA, ruling on every gate with evidence. Its output is checked before it counts.
 */
import { readFile } from "node:fs/promises";
import { createEngine, resolveVerifier } from "../../engines/registry.ts";
import { parseVerdictOutput, verdictJsonSchema } from "../../verify/verdict.ts";
import { buildVerifierPrompt } from "../../verify/verifier-prompt.ts";
import type { RunContext } from "../run-context.ts";
import { isDeterministic } from "../spec.ts";
import { currentIteration } from "../state.ts";
import { buildTurnContext } from "./build-turn-context.ts";
import { withScratchWorktree } from "./scratch-worktree.ts";

export async function runVerifierTurn(context: RunContext): Promise<void> {
  const state = context.state();
  const iteration = currentIteration(state);
  const sha = iteration?.commit?.sha;
  if (!iteration?.screen || !sha || !state.baseSha) throw new Error("nothing graded to verify");
  const turnNumber =
    state.iterations.filter((candidate) => candidate.verifier || candidate.verifierRunning).length + 1;
  await context.append("verifier_started", { iteration: iteration.number, sha, turnNumber });
  const engine = createEngine(resolveVerifier(state.spec.maker, state.spec.verifier), "verifier");
  const diff = await readFile(iteration.screen.diffPath, "utf8").catch(() => "");
  const prompt = buildVerifierPrompt({
    spec: state.spec,
    sha,
    baseSha: state.baseSha,
    gateResults: state.spec.gates
      .filter(isDeterministic)
      .flatMap((gate) => iteration.gates.grade[gate.id] ?? []),
    diffPath: iteration.screen.diffPath,
    diff,
    changedFiles: iteration.screen.changedFiles,
    protectedFiles: iteration.screen.protectedFiles,
  });
  const started = performance.now();
  const { result, wroteFiles } = await withScratchWorktree(
    context,
    `verify-${iteration.number}`,
    sha,
    (cwd) =>
      engine.runTurn({
        role: "verifier",
        cwd,
        prompt,
        readOnly: true,
        outputSchema: verdictJsonSchema(),
        context: { ...buildTurnContext(state, iteration.number, "verifier", context.loop.name) },
        turnNumber,
        wallClockMs: state.spec.budget.wallClockPerIteration,
        maxCostUsd: state.spec.budget.maxCostUsdPerIteration,
        turnDirectory: context.layout.iterationDirectory(context.loop.id, iteration.number),
        runId: context.runId,
        stepId: `verifier-${iteration.number}`,
        signal: context.cancelSignal,
      }),
  );
  const durationMs = Math.round(performance.now() - started);
  const base = { iteration: iteration.number, wroteFiles, durationMs, costUsd: result.costUsd };
  if (result.status !== "completed") {
    const status = result.status;
    await context.append("verifier_ended", {
      ...base,
      status,
      error: result.error ?? `the verifier turn ended: ${result.status}`,
    });
    return;
  }
  const output = result.output ?? result.text;
  const check = parseVerdictOutput(output, state.spec.gates);
  if (!check.valid) {
    await context.append("verifier_ended", {
      ...base,
      status: "invalid",
      error: `invalid verdict: ${check.problems.join("; ")}`,
      output: context.redact(output.slice(0, 4000)),
    });
    return;
  }
  await context.append("verifier_ended", { ...base, status: "ruled", verdict: check.verdict });
}
