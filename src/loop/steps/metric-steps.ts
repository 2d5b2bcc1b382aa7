/**
 * The IO of `strategy: metric`: measuring a commit (the metric command `samples` times, one after the
 * other, in the gate checkout at that commit, full logs on disk) and keeping or discarding an attempt
 * (a discarded one stays reachable under `refs/loopwright/<loop id>/attempts/<iteration>`; the branch
 * and the maker's checkout go back to the best kept commit). Both are safe to re-run after a crash.
 */
import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { runGates } from "../../gates/run-gates.ts";
import { branchTip, moveBranch, storeRef } from "../../git/loop-branch.ts";
import { checkOut } from "../../git/loop-repository.ts";
import type { RunContext } from "../run-context.ts";
import { currentIteration } from "../state.ts";
import { formatMetric, median, metricStanding } from "../strategies/metric-state.ts";
import { gatesIndex, loopRepositoryOf, makerIndex } from "./loop-git.ts";

export async function measureMetric(
  context: RunContext,
  iterationNumber: number,
  phase: "base" | "attempt" | "remeasure",
): Promise<void> {
  const state = context.state();
  const strategy = state.spec.strategy;
  if (strategy.kind !== "metric") throw new Error("measure_metric outside strategy metric");
  const sha = iterationNumber === 0 ? state.baseSha : currentIteration(state)?.commit?.sha;
  if (!sha) throw new Error("no commit to measure");
  const repository = await loopRepositoryOf(context);
  await checkOut(repository, context.gateWorktree, gatesIndex, sha, { detached: true });
  const runs = Array.from({ length: strategy.samples }, (_, index) => ({
    id: `metric-${phase}-${index + 1}`,
    kind: "eval-script",
    command: strategy.run,
    timeoutMs: strategy.timeout,
    parallel: false,
  }));
  const outcomes = await runGates(runs, {
    cwd: context.gateWorktree,
    logDirectory: join(context.layout.iterationDirectory(context.loop.id, iterationNumber), "metric"),
    env: {},
    redact: context.redact,
    runId: context.runId,
    stepPrefix: `metric-${iterationNumber}-${phase}`,
    signal: context.cancelSignal,
  });
  if (context.cancelSignal.aborted) return;
  const pattern = new RegExp(strategy.pattern, "g");
  const samples: number[] = [];
  let error: string | undefined;
  for (const outcome of outcomes) {
    const text = await readFile(outcome.logPath, "utf8").catch(() => "");
    const value = Number([...text.matchAll(pattern)].at(-1)?.[1]);
    if (!outcome.passed || !Number.isFinite(value)) {
      error ??= !outcome.passed
        ? `\`${strategy.run}\` ${outcome.timedOut ? "timed out" : `exited ${outcome.exitCode}`} (log ${outcome.logPath})`
        : `no number matched /${strategy.pattern}/ in its output (log ${outcome.logPath})`;
      continue;
    }
    samples.push(value);
  }
  await context.append("metric_measured", {
    iteration: iterationNumber,
    phase,
    sha,
    samples,
    ...(error ? { error } : { median: median(samples) }),
    logPaths: outcomes.map((outcome) => outcome.logPath),
  });
}

export async function judgeAttempt(
  context: RunContext,
  iterationNumber: number,
  kept: boolean,
): Promise<void> {
  const state = context.state();
  const strategy = state.spec.strategy;
  if (strategy.kind !== "metric") throw new Error("judge_attempt outside strategy metric");
  const iteration = state.iterations.find((candidate) => candidate.number === iterationNumber);
  const standing = metricStanding(state, strategy);
  if (!iteration || !standing) throw new Error("judge_attempt without a measured base and an attempt");
  const sha = iteration.commit?.sha ?? iteration.startSha;
  const measured = state.metric?.measurements.filter((entry) => entry.iteration === iterationNumber) ?? [];
  const value = measured.findLast((entry) => entry.median !== undefined)?.median;
  const common = { iteration: iterationNumber, sha, best: standing.best, noise: standing.noise };
  if (kept) {
    await context.append("attempt_judged", {
      ...common,
      kept,
      median: value,
      keptSha: sha,
      reason: `beat ${formatMetric(standing.best)} by more than the noise floor ${formatMetric(standing.noise)}, measured twice; every gate held`,
    });
    return;
  }
  const { repoRoot } = context.loop;
  const ref =
    sha === standing.bestSha ? undefined : `refs/loopwright/${context.loop.id}/attempts/${iterationNumber}`;
  if (ref) await storeRef(repoRoot, ref, sha);
  const branch = state.spec.branch;
  const tip = await branchTip(repoRoot, branch);
  if (tip !== standing.bestSha) await moveBranch(repoRoot, branch, standing.bestSha, tip);
  const repository = await loopRepositoryOf(context);
  await checkOut(repository, context.makerWorktree, makerIndex, standing.bestSha, { branch });
  await context.append("attempt_judged", {
    ...common,
    kept,
    ...(value === undefined ? {} : { median: value }),
    keptSha: standing.bestSha,
    ...(ref ? { ref } : {}),
    reason: iteration.ended?.summary ?? "not verified",
  });
}
