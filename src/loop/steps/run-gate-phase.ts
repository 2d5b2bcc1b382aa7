/**
 * Deterministic gates on a committed SHA, in the gate worktree the maker never touches: moved to the
 * SHA and cleaned (ignored files such as node_modules stay, and come from setup, not from the maker),
 * setup re-run when a lockfile changed, gates in parallel where allowed, each event recorded as it happens.
 */
import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import type { GatePhase } from "../../core/events.ts";
import type { RunnerName } from "../../gates/digest/digest-types.ts";
import { digestLog, renderDigest } from "../../gates/digest/index.ts";
import { incompleteRunReason } from "../../gates/incomplete-run.ts";
import { recheckCommand } from "../../gates/recheck-command.ts";
import { runGates } from "../../gates/run-gates.ts";
import { changedFiles } from "../../git/diffs.ts";
import { checkOut, indexTree } from "../../git/loop-repository.ts";
import type { RunContext } from "../run-context.ts";
import { currentIteration } from "../state.ts";
import { gatesIndex, loopRepositoryOf } from "./loop-git.ts";
import { runSetup } from "./prepare.ts";

const lockfilePattern =
  /(^|\/)(package-lock\.json|npm-shrinkwrap\.json|pnpm-lock\.yaml|yarn\.lock|bun\.lockb?|Cargo\.lock|go\.sum|poetry\.lock|uv\.lock|Pipfile\.lock|Gemfile\.lock|composer\.lock|mix\.lock)$/;

export async function runGatePhase(context: RunContext, phase: GatePhase, gateIds: string[]): Promise<void> {
  const state = context.state();
  // The baseline grades the base commit before any iteration (iteration 0).
  const iterationNumber = phase === "baseline" ? 0 : currentIteration(state)?.number;
  const sha = phase === "baseline" ? state.baseSha : currentIteration(state)?.commit?.sha;
  if (iterationNumber === undefined || !sha) throw new Error("no committed SHA to grade");
  const repository = await loopRepositoryOf(context);
  // What the gate checkout held (its private index, whatever the last gates did to the folder) matters
  // only for re-running setup; without setup, spare the git run.
  const previous =
    state.spec.setup.length > 0 ? await indexTree(repository, context.gateWorktree, gatesIndex) : sha;
  await checkOut(repository, context.gateWorktree, gatesIndex, sha, { detached: true });
  if (previous !== sha) {
    const touched = await changedFiles(context.loop.repoRoot, previous, sha);
    if (touched.some((file) => lockfilePattern.test(file))) await runSetup(context, context.gateWorktree);
  }
  const gates = state.spec.gates.filter((gate) => gateIds.includes(gate.id));
  // A recheck reruns only the graded run's failing tests where the runner can be told which.
  const graded = phase === "recheck" ? (currentIteration(state)?.gates.grade ?? {}) : {};
  const narrowed = new Map(
    gates.flatMap((gate) => {
      const failures = graded[gate.id]?.failures ?? [];
      const command = recheckCommand(gate.run ?? "", failures);
      return command ? [[gate.id, { command, failures }] as const] : [];
    }),
  );
  const commandOf = (gateId: string) =>
    narrowed.get(gateId)?.command ?? gates.find((gate) => gate.id === gateId)?.run ?? "";
  // Events are recorded in order while the gates run. A recording that fails (the store gave up) must
  // not reject a promise nobody awaits yet: that would crash the controller and orphan running gates.
  // The first failure is kept and thrown once every gate has ended.
  let pending: Promise<void> = Promise.resolve();
  let recordFailure: { error: unknown } | undefined;
  const record = (work: () => Promise<void>) => {
    pending = pending.then(work).catch((error: unknown) => {
      recordFailure ??= { error };
    });
  };
  await runGates(
    gates.map((gate) => ({
      id: gate.id,
      kind: gate.kind,
      command: commandOf(gate.id),
      timeoutMs: gate.timeout,
      parallel: gate.parallel,
    })),
    {
      cwd: context.gateWorktree,
      logDirectory: join(
        context.layout.iterationDirectory(context.loop.id, iterationNumber),
        `gates-${phase}`,
      ),
      env: {},
      redact: context.redact,
      runId: context.runId,
      stepPrefix: `gates-${iterationNumber}-${phase}`,
      signal: context.cancelSignal,
      onGateStarted: (gateId) =>
        record(() => context.append("gate_started", { iteration: iterationNumber, gateId, phase, sha })),
      onGateEnded: (outcome) =>
        record(() => {
          if (outcome.cancelled) {
            return context.append("gate_interrupted", {
              iteration: iterationNumber,
              gateId: outcome.id,
              phase,
            });
          }
          const gate = gates.find((candidate) => candidate.id === outcome.id);
          return digestGateLog(outcome.logPath, context.gateWorktree).then(({ runners, ...digest }) => {
            const incomplete = incompleteRunReason({
              kind: gate?.kind ?? "tests-pass",
              command: commandOf(outcome.id),
              exitCode: outcome.exitCode,
              timedOut: outcome.timedOut,
              runners,
              testsExecuted: digest.testsExecuted,
              tail: outcome.tail,
            });
            return context.append("gate_ended", {
              iteration: iterationNumber,
              result: {
                id: outcome.id,
                kind: gate?.kind ?? "tests-pass",
                command: commandOf(outcome.id),
                phase,
                sha,
                exitCode: outcome.exitCode,
                passed: outcome.passed && !incomplete,
                timedOut: outcome.timedOut,
                durationMs: Math.round(outcome.durationMs),
                logPath: outcome.logPath,
                tail: outcome.tail,
                survivorsKilled: outcome.survivorsKilled.length,
                error: outcome.spawnError ?? outcome.logError,
                ...digest,
                ...(incomplete ? { incomplete } : {}),
                ...(narrowed.has(outcome.id) ? { rerunOnly: narrowed.get(outcome.id)?.failures } : {}),
              },
            });
          });
        }),
    },
  );
  await pending;
  if (recordFailure) throw recordFailure.error;
}

/** How many failing test names a gate result keeps (enough to compare with the baseline, bounded). */
const failureNamesKept = 2000;

/**
 * Digests a gate's log: the failing tests' names and the test count (for baseline comparisons and the
 * tamper screen), and the rendered digest written next to the log for the next brief.
 */
async function digestGateLog(
  logPath: string,
  worktree: string,
): Promise<{ failures: string[]; testsExecuted?: number; digestPath?: string; runners: RunnerName[] }> {
  const digest = await digestLog(logPath, { root: worktree, logPath });
  if (digest.readError) return { failures: [], runners: [] };
  const failures = [...new Set(digest.failures.map((failure) => failure.name))].slice(0, failureNamesKept);
  const digestPath = logPath.replace(/\.log$/, ".digest.md");
  if (digest.totalFailures > 0) await writeFile(digestPath, renderDigest(digest));
  return {
    failures,
    testsExecuted: digest.testsExecuted,
    digestPath: digest.totalFailures > 0 ? digestPath : undefined,
    runners: digest.runners,
  };
}
