/**
 * The verifier's turn: a blank, read-only session on another engine, in a disposable worktree of the
 * graded SHA, ruling on every gate and every tamper flag with evidence. Its verdict is checked, shape
 * and evidence both, before it counts; an invalid verdict gets one corrective retry that lists what was
 * wrong, and a second invalid one is an infrastructure error. Each attempt's cost watchdog gets what the
 * iteration has left of its cap; an attempt with nothing left does not start, and the verifier ends
 * over budget.
 */
import { readFile } from "node:fs/promises";
import { passesPolicy } from "../../core/gate-status.ts";
import { isDeterministic } from "../../core/spec.ts";
import { createEngine, resolveVerifier } from "../../engines/registry.ts";
import { monotonicMs } from "../../process/monotonic-clock.ts";
import { commitEvidenceSources } from "../../verify/commit-evidence-sources.ts";
import { deriveOverall } from "../../verify/derive-overall.ts";
import { checkEvidence } from "../../verify/evidence-check.ts";
import { parseVerdictOutput, type VerdictCheck, verdictJsonSchema } from "../../verify/verdict.ts";
import { buildVerifierPrompt } from "../../verify/verifier-prompt.ts";
import { countsAsPassed } from "../gate-assessment.ts";
import { iterationSpentUsd, nextTurnCap } from "../iteration-spending.ts";
import type { RunContext } from "../run-context.ts";
import {
  allGateResults,
  currentIteration,
  type IterationState,
  type LoopState,
  phaseResults,
} from "../state.ts";
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
  const graded = phaseResults(iteration, "grade");
  const gradedGates = state.spec.gates.filter((gate) => isDeterministic(gate) && graded[gate.id]);
  const gateResults = gradedGates.map((gate) => graded[gate.id]);
  // What the verifier may not approve: a run that does not count as passed (failures its baseline policy
  // accepts do count, and so does a failure that did not reproduce on a gate that says `flaky: report`).
  const redGates = gradedGates
    .filter((gate) => !countsAsPassed(gate, iteration, state.baseline[gate.id]))
    .map((gate) => gate.id);
  const reportedFlakes = gradedGates
    .filter((gate) => !passesPolicy(gate, graded[gate.id], state.baseline[gate.id]))
    .filter((gate) => !redGates.includes(gate.id))
    .map((gate) => gate.id);
  const digests = await readDigests(gateResults.map((result) => result.digestPath));
  const prompt = buildVerifierPrompt({
    spec: state.spec,
    sha,
    baseSha: state.baseSha,
    gateResults,
    baseline: state.baseline,
    digests,
    tamperFlags: iteration.tamperFlags,
    reportedFlakes,
    diffPath: iteration.screen.diffPath,
    diff,
    changedFiles: iteration.screen.changedFiles,
    ...reviewRequestOf(state, iteration.number),
  });
  const started = monotonicMs();
  const spentBefore = iterationSpentUsd(await context.store.readEvents(context.loop.id), iteration.number);
  const turn = (text: string, attempt: number, maxCostUsd: number) =>
    withScratchWorktree(context, `verify-${iteration.number}`, sha, (cwd) =>
      engine.runTurn({
        role: "verifier",
        cwd,
        prompt: text,
        readOnly: true,
        outputSchema: verdictJsonSchema(),
        context: { ...buildTurnContext(state, iteration.number, "verifier", context.loop.name) },
        turnNumber: turnNumber + attempt - 1,
        wallClockMs: state.spec.budget.wallClockPerIteration,
        maxCostUsd,
        turnDirectory: context.layout.iterationDirectory(context.loop.id, iteration.number),
        runId: context.runId,
        stepId: `verifier-${iteration.number}-${attempt}`,
        signal: context.cancelSignal,
      }),
    );

  let costUsd = 0;
  const usage = { inputTokens: 0, outputTokens: 0 };
  let wrote: string[] = [];
  let lastProblems: string[] = [];
  for (let attempt = 1; ; attempt += 1) {
    const retryNote = attempt === 1 ? "" : correctionNote(lastProblems);
    const role = attempt === 1 ? "verifier" : "verifier's corrective retry";
    const cap = nextTurnCap(state.spec.budget.maxCostUsdPerIteration, spentBefore + costUsd, role);
    if (cap.exhausted) {
      await context.append("verifier_ended", {
        iteration: iteration.number,
        status: "over_budget",
        error: cap.message,
        wroteFiles: wrote,
        durationMs: Math.round(monotonicMs() - started),
        costUsd,
        usage: usage.inputTokens + usage.outputTokens > 0 ? usage : undefined,
      });
      return;
    }
    const { result, wroteFiles } = await turn(prompt + retryNote, attempt, cap.maxCostUsd);
    costUsd += result.costUsd ?? 0;
    usage.inputTokens += result.usage?.inputTokens ?? 0;
    usage.outputTokens += result.usage?.outputTokens ?? 0;
    wrote = [...new Set([...wrote, ...wroteFiles])];
    const base = {
      iteration: iteration.number,
      wroteFiles: wrote,
      durationMs: Math.round(monotonicMs() - started),
      costUsd: costUsd || result.costUsd,
      usage: usage.inputTokens + usage.outputTokens > 0 ? usage : undefined,
    };
    if (result.status !== "completed") {
      const error = result.error ?? `the verifier turn ended: ${result.status}`;
      await context.append("verifier_ended", { ...base, status: result.status, error });
      return;
    }
    const output = result.output ?? result.text;
    const check = await judge(output, context, iteration, redGates, sha);
    if (check.valid) {
      const { disagreement } = deriveOverall(check.verdict, state.spec.gates);
      await context.append("verifier_ended", {
        ...base,
        status: "ruled",
        verdict: check.verdict,
        disagreement,
      });
      return;
    }
    lastProblems = check.problems;
    if (attempt >= 2) {
      await context.append("verifier_ended", {
        ...base,
        status: "invalid",
        error: `invalid verdict after a corrective retry: ${check.problems.join("; ")}`,
        output: context.redact(output.slice(0, 4000)),
      });
      return;
    }
    await context.append("verdict_rejected", {
      iteration: iteration.number,
      problems: check.problems,
      output: context.redact(output.slice(0, 4000)),
    });
  }
}

/** Shape first, then evidence against the commit and the gates' own logs. */
async function judge(
  output: string,
  context: RunContext,
  iteration: IterationState,
  redGates: string[],
  sha: string,
): Promise<VerdictCheck> {
  const state = context.state();
  const shape = parseVerdictOutput(output, state.spec.gates, { flags: iteration.tamperFlags, redGates });
  if (!shape.valid) return shape;
  const problems = await checkEvidence(
    shape.verdict,
    commitEvidenceSources(context.loop.repoRoot, sha, (gateId) =>
      allGateResults(iteration)
        .filter((result) => result.id === gateId && result.sha === sha)
        .map((result) => result.logPath),
    ),
  );
  return problems.length > 0 ? { valid: false, problems } : shape;
}

function correctionNote(problems: string[]): string {
  return `\n\n## Your previous verdict was rejected\nIt was not admissible, for these reasons:\n${problems.map((problem) => `- ${problem}`).join("\n")}\nAnswer again with one corrected JSON verdict. Cite only files that exist in the commit and output that the gates really printed.\n`;
}

async function readDigests(paths: (string | undefined)[]): Promise<Record<string, string>> {
  const entries = await Promise.all(
    paths
      .filter((path): path is string => Boolean(path))
      .map(async (path) => [path, await readFile(path, "utf8").catch(() => "")] as const),
  );
  return Object.fromEntries(entries);
}

/** The `/loopwright` review request an iteration answers, for the verifier's prompt. */
function reviewRequestOf(state: LoopState, iteration: number) {
  const round = state.reviewComments.rounds.find((candidate) => candidate.iteration === iteration);
  if (!round) return {};
  const where = round.path ? `${round.path}${round.line ? `:${round.line}` : ""}` : undefined;
  return { request: { author: round.author, text: round.body, ...(where ? { where } : {}) } };
}
