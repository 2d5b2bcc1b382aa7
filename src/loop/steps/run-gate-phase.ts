/**
 * Deterministic gates on a committed SHA, in the gate worktree the maker never touches: moved to the
 * SHA and cleaned (ignored files such as node_modules stay, and come from setup, not from the maker),
 * setup re-run when a lockfile changed, gates in parallel where allowed, each event recorded as it happens.
 */
import { join } from "node:path";
import { runGates } from "../../gates/run-gates.ts";
import { headSha } from "../../git/commits.ts";
import { changedFiles } from "../../git/diffs.ts";
import { checkoutDetached } from "../../git/worktrees.ts";
import type { GatePhase } from "../events.ts";
import type { RunContext } from "../run-context.ts";
import { currentIteration } from "../state.ts";
import { runSetup } from "./prepare.ts";

const lockfilePattern =
  /(^|\/)(package-lock\.json|npm-shrinkwrap\.json|pnpm-lock\.yaml|yarn\.lock|bun\.lockb?|Cargo\.lock|go\.sum|poetry\.lock|uv\.lock|Pipfile\.lock|Gemfile\.lock|composer\.lock|mix\.lock)$/;

export async function runGatePhase(context: RunContext, phase: GatePhase, gateIds: string[]): Promise<void> {
  const state = context.state();
  const iteration = currentIteration(state);
  const sha = iteration?.commit?.sha;
  if (!iteration || !sha) throw new Error("no committed SHA to grade");
  // Where the gate worktree was matters only for re-running setup; without setup, spare the git run.
  const previous = state.spec.setup.length > 0 ? await headSha(context.gateWorktree) : sha;
  await checkoutDetached(context.gateWorktree, sha);
  if (previous !== sha) {
    const touched = await changedFiles(context.gateWorktree, previous, sha);
    if (touched.some((file) => lockfilePattern.test(file))) await runSetup(context, context.gateWorktree);
  }
  const gates = state.spec.gates.filter((gate) => gateIds.includes(gate.id));
  let pending: Promise<void> = Promise.resolve();
  const record = (work: () => Promise<void>) => {
    pending = pending.then(work);
  };
  await runGates(
    gates.map((gate) => ({
      id: gate.id,
      kind: gate.kind,
      command: gate.run ?? "",
      timeoutMs: gate.timeout,
      parallel: gate.parallel,
    })),
    {
      cwd: context.gateWorktree,
      logDirectory: join(
        context.layout.iterationDirectory(context.loop.id, iteration.number),
        `gates-${phase}`,
      ),
      env: {},
      redact: context.redact,
      runId: context.runId,
      stepPrefix: `gates-${iteration.number}-${phase}`,
      signal: context.cancelSignal,
      onGateStarted: (gateId) =>
        record(() => context.append("gate_started", { iteration: iteration.number, gateId, phase, sha })),
      onGateEnded: (outcome) =>
        record(() => {
          if (outcome.cancelled) {
            return context.append("gate_interrupted", {
              iteration: iteration.number,
              gateId: outcome.id,
              phase,
            });
          }
          const gate = gates.find((candidate) => candidate.id === outcome.id);
          return context.append("gate_ended", {
            iteration: iteration.number,
            result: {
              id: outcome.id,
              kind: gate?.kind ?? "tests-pass",
              command: gate?.run ?? "",
              phase,
              sha,
              exitCode: outcome.exitCode,
              passed: outcome.passed,
              timedOut: outcome.timedOut,
              durationMs: Math.round(outcome.durationMs),
              logPath: outcome.logPath,
              tail: outcome.tail,
              survivorsKilled: outcome.survivorsKilled.length,
              error: outcome.spawnError,
            },
          });
        }),
    },
  );
  await pending;
}
