/**
 * A review round: the spec's `review` engine, read-only, in an empty folder holding only the patch of
 * the maker's last turn, reads that patch with the goal and the checklist (no logs, no conversation)
 * and answers `ok` or `changes_requested` with findings. A malformed answer gets one corrective retry;
 * a second one is an infrastructure error. Findings that cite a file or line not in the patch are
 * dropped and recorded. The turn spends from the iteration's cost cap like every other turn.
 */
import { mkdir, rm, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { cap } from "../../core/cap-text.ts";
import { reviewerEngine } from "../../core/spec.ts";
import { createEngine } from "../../engines/registry.ts";
import type { TurnContext } from "../../engines/turn-context.ts";
import { diffText } from "../../git/diffs.ts";
import { monotonicMs } from "../../process/monotonic-clock.ts";
import {
  findingsInPatch,
  parseReviewAnswer,
  reviewAnswerJsonSchema,
} from "../../verify/review/review-answer.ts";
import { buildReviewerPrompt } from "../../verify/review/reviewer-prompt.ts";
import { parseUnifiedDiff } from "../../verify/tamper/unified-diff.ts";
import { iterationSpentUsd, nextTurnCap } from "../iteration-spending.ts";
import { reviewerTurnNumber, turnBase } from "../review-rounds.ts";
import type { RunContext } from "../run-context.ts";
import { currentIteration } from "../state.ts";

/** How much of the patch the `review_started` event itself carries (the whole patch is in `patchPath`). */
const patchEventLimit = 16_000;

export async function runReviewTurn(context: RunContext, round: number): Promise<void> {
  const state = context.state();
  const iteration = currentIteration(state);
  const review = state.spec.review;
  const sha = iteration?.commit?.sha;
  if (!iteration || !sha || !review) throw new Error("no committed maker turn to review");
  const fromSha = turnBase(iteration);
  const patch = context.redact(await diffText(context.loop.repoRoot, fromSha, sha));
  const patchFiles = parseUnifiedDiff(patch);
  const files = [...new Set(patchFiles.flatMap((file) => [file.oldPath, file.path]))].sort();
  const directory = context.layout.iterationDirectory(context.loop.id, iteration.number);
  await mkdir(directory, { recursive: true });
  const patchPath = join(directory, `review-${round}.patch`);
  await writeFile(patchPath, patch);
  await context.append("review_started", {
    iteration: iteration.number,
    round,
    sha,
    fromSha,
    files,
    patch: cap(patch, patchEventLimit),
    patchPath,
  });

  const engine = createEngine(reviewerEngine(review), "review");
  const prompt = buildReviewerPrompt({
    goal: state.spec.goal,
    checklist: review.checklist,
    patch,
    round,
    rounds: review.rounds,
  });
  // The reviewer sees the patch and nothing else: its folder holds only that.
  const workspace = join(directory, `review-${round}`);
  const turnContext: TurnContext = {
    loop: context.loop.name,
    iteration: iteration.number,
    role: "reviewer",
    goal: state.spec.goal,
    baseSha: fromSha,
    sha,
    diffPath: join(workspace, "patch.diff"),
    changedFiles: files,
    protectedFiles: [],
    tamperFlags: [],
    gates: [],
  };
  const started = monotonicMs();
  const spentBefore = iterationSpentUsd(await context.store.readEvents(context.loop.id), iteration.number);
  let costUsd = 0;
  const usage = { inputTokens: 0, outputTokens: 0 };
  let lastProblems: string[] = [];
  for (let attempt = 1; ; attempt += 1) {
    const ended = (durationFields: { costUsd?: number }) => ({
      iteration: iteration.number,
      round,
      findings: [],
      dropped: [],
      durationMs: Math.round(monotonicMs() - started),
      usage: usage.inputTokens + usage.outputTokens > 0 ? { ...usage } : undefined,
      ...durationFields,
    });
    const role = attempt === 1 ? "reviewer" : "reviewer's corrective retry";
    const turnCap = nextTurnCap(state.spec.budget.maxCostUsdPerIteration, spentBefore + costUsd, role);
    if (turnCap.exhausted) {
      await context.append("review_ended", {
        ...ended({ costUsd }),
        status: "over_budget",
        error: turnCap.message,
      });
      return;
    }
    await rm(workspace, { recursive: true, force: true });
    await mkdir(workspace, { recursive: true });
    await writeFile(join(workspace, "patch.diff"), patch);
    const result = await engine.runTurn({
      role: "reviewer",
      cwd: workspace,
      prompt: prompt + (attempt === 1 ? "" : correctionNote(lastProblems)),
      readOnly: true,
      outputSchema: reviewAnswerJsonSchema(),
      context: { ...turnContext },
      turnNumber: reviewerTurnNumber(state, iteration.number, round, attempt),
      wallClockMs: state.spec.budget.wallClockPerIteration,
      maxCostUsd: turnCap.maxCostUsd,
      turnDirectory: directory,
      runId: context.runId,
      stepId: `review-${iteration.number}-${round}-${attempt}`,
      signal: context.cancelSignal,
    });
    costUsd += result.costUsd ?? 0;
    usage.inputTokens += result.usage?.inputTokens ?? 0;
    usage.outputTokens += result.usage?.outputTokens ?? 0;
    const spent = { costUsd: result.costUsd === undefined && costUsd === 0 ? undefined : costUsd };
    if (result.status !== "completed") {
      const error = result.error ?? `the reviewer's turn ended: ${result.status}`;
      await context.append("review_ended", {
        ...ended(spent),
        status: result.status,
        error: context.redact(error),
      });
      return;
    }
    const output = result.output ?? result.text;
    const check = parseReviewAnswer(output);
    if (check.valid) {
      const { kept, dropped } = findingsInPatch(check.answer.findings, patchFiles);
      await context.append("review_ended", {
        ...ended(spent),
        status: "reviewed",
        verdict: check.answer.verdict,
        findings: kept,
        dropped,
      });
      return;
    }
    lastProblems = check.problems;
    const quoted = context.redact(output.slice(0, 4000));
    if (attempt >= 2) {
      await context.append("review_ended", {
        ...ended(spent),
        status: "invalid",
        error: `malformed review after a corrective retry: ${check.problems.join("; ")}`,
        output: quoted,
      });
      return;
    }
    await context.append("review_rejected", {
      iteration: iteration.number,
      round,
      problems: check.problems,
      output: quoted,
    });
  }
}

function correctionNote(problems: string[]): string {
  return `\n\n## Your previous answer was rejected\nIt was malformed, for these reasons:\n${problems.map((problem) => `- ${problem}`).join("\n")}\nAnswer again with one corrected JSON value, in exactly the shape above.\n`;
}
