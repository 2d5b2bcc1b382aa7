/**
 * Deterministic gates on a committed SHA, in the gate worktree the maker never touches: moved to the
 * SHA and cleaned (ignored files such as node_modules stay, and come from setup, not from the maker),
 * setup re-run when a lockfile changed, gates in parallel where allowed, each event recorded as it happens.
 */
import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import picomatch from "picomatch";
import type { GatePhase, GateResult } from "../../core/events.ts";
import type { Digest, RunnerName } from "../../gates/digest/digest-types.ts";
import { incompleteRunReason } from "../../gates/incomplete-run.ts";
import { recheckCommand } from "../../gates/recheck-command.ts";
import { runGates } from "../../gates/run-gates.ts";
import { changedFiles } from "../../git/diffs.ts";
import { checkOut, indexTree, knownIndexCommit } from "../../git/loop-repository.ts";
import { testFileNamePatterns } from "../../verify/tamper/default-patterns.ts";
import type { RunContext } from "../run-context.ts";
import { currentIteration } from "../state.ts";
import { loadDigest } from "./digest-module.ts";
import { gatesIndex, loopRepositoryOf, takeGateCheckoutAhead } from "./loop-git.ts";
import { runSetup } from "./prepare.ts";

const lockfilePattern =
  /(^|\/)(package-lock\.json|npm-shrinkwrap\.json|pnpm-lock\.yaml|yarn\.lock|bun\.lockb?|Cargo\.lock|go\.sum|poetry\.lock|uv\.lock|Pipfile\.lock|Gemfile\.lock|composer\.lock|mix\.lock)$/;

/**
 * Runs `gateIds` of iteration `iterationNumber` (0: the base commit) as `phase`, on that iteration's
 * commit. `prepared`: checkouts known to hold a commit's files untouched (see `takePreparedCheckouts`);
 * the gates' checkout is not checked out again when it holds this commit.
 */
export async function runGatePhase(
  context: RunContext,
  iterationNumber: number,
  phase: GatePhase,
  gateIds: string[],
  prepared: ReadonlyMap<string, string> = new Map(),
): Promise<void> {
  const state = context.state();
  const iteration = iterationNumber === 0 ? undefined : currentIteration(state);
  const sha = iterationNumber === 0 ? state.baseSha : iteration?.commit?.sha;
  if (!sha || (iterationNumber !== 0 && iteration?.number !== iterationNumber))
    throw new Error("no committed SHA to grade");
  const repository = await loopRepositoryOf(context);
  // The checkout the commit step began (see `handGateCheckoutAhead`: only where no setup runs) is this
  // step's when it holds this commit; it has ended before the index is read below.
  const madeAhead = await takeGateCheckoutAhead(context, sha);
  // What the gate checkout held (its private index, whatever the last gates did to the folder) matters
  // only for re-running setup; without setup, spare the git run. The commit this process last checked
  // out there, when the index is still the one it left, needs no git (a recheck: the same commit).
  const previous =
    state.spec.setup.length > 0
      ? (knownIndexCommit(repository, gatesIndex) ??
        (await indexTree(repository, context.gateWorktree, gatesIndex)))
      : sha;
  if (prepared.get(context.gateWorktree) !== sha && !madeAhead)
    await checkOut(repository, context.gateWorktree, gatesIndex, sha, { detached: true });
  if (previous !== sha) {
    const touched = await changedFiles(context.loop.repoRoot, previous, sha);
    if (touched.some((file) => lockfilePattern.test(file))) await runSetup(context, context.gateWorktree);
  }
  const gates = state.spec.gates.filter((gate) => gateIds.includes(gate.id));
  // A recheck reruns only the failing tests of the gate's last red run, with the gate's `rerunFailed`
  // or where the runner can be told which.
  const runs = iterationNumber === 0 ? state.baseRuns.gates : (iteration?.gates ?? {});
  const narrowed = new Map(
    phase !== "recheck"
      ? []
      : gates.flatMap((gate) => {
          const red = lastRedRun(runs, gate.id);
          const failures = red?.failures ?? [];
          const command = gate.rerunFailed ?? recheckCommand(gate.run ?? "", failures, red?.failureFiles);
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
      onGateStarted: (gateId) => {
        record(() => context.append("gate_started", { iteration: iterationNumber, gateId, phase, sha }));
        // Once the gate's process has started (synchronously after this call) and its start is recorded:
        // the digest loads while the gate runs (see digest-module.ts; its import holds this process's turn
        // ~10 ms in a fresh controller), and makes its searches (compiled on first use: 5–12 ms of CPU)
        // before the gate's log needs them. The searches wait for one turn of the event loop (its poll)
        // after the import: a gate that ended meanwhile (a quick one, as `false` on the base commit) is
        // seen first, so that its sweep's first look runs now and its confirming look's pause (sweep.ts)
        // passes while the searches are made, not after them (~5 ms on the way to the maker's first command).
        setImmediate(() =>
          loadDigest()
            .then((digest) => setImmediate(() => setImmediate(() => digest.warmDigestSearches())))
            .catch(() => {}),
        );
      },
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

/** The gate's last red run before its recheck (grade, confirm, ... or on the base commit baseline, confirm, ...). */
function lastRedRun(
  runs: Partial<Record<GatePhase, Record<string, GateResult>>>,
  gateId: string,
): GateResult | undefined {
  const results = Object.entries(runs)
    .filter(([phase]) => phase !== "recheck")
    .flatMap(([, byGate]) => (byGate?.[gateId] ? [byGate[gateId]] : []));
  return results.filter((result) => !result.passed).at(-1);
}

/**
 * Whether a path is a test file's, compiled at its first question, not when this module loads: the run's
 * modules load before its first event, and a digest with no failure (a gate that printed none) asks none
 * (compiling the patterns cost 3-6 ms of CPU a run on a loaded 2-core machine).
 */
let testFileMatcher: picomatch.Matcher | undefined;
function isTestFile(path: string): boolean {
  testFileMatcher ??= picomatch([...testFileNamePatterns], { dot: true });
  return testFileMatcher(path);
}

/** The test files a digest's failures point at, when every failure it counted points at one. */
export function failingTestFiles(digest: Digest): string[] | undefined {
  const files = digest.failures.map(
    (failure) => failure.anchors.find((anchor) => isTestFile(anchor.file))?.file,
  );
  if (files.length === 0 || files.length !== digest.totalFailures) return undefined;
  if (!files.every((file): file is string => file !== undefined)) return undefined;
  return [...new Set(files)].sort();
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
): Promise<{
  failures: string[];
  testsExecuted?: number;
  digestPath?: string;
  failureFiles?: string[];
  runners: RunnerName[];
}> {
  const { digestLog, renderDigest } = await loadDigest();
  const digest = await digestLog(logPath, { root: worktree, logPath });
  if (digest.readError) return { failures: [], runners: [] };
  const failures = [...new Set(digest.failures.map((failure) => failure.name))].slice(0, failureNamesKept);
  const digestPath = logPath.replace(/\.log$/, ".digest.md");
  if (digest.totalFailures > 0) await writeFile(digestPath, renderDigest(digest));
  const failureFiles = failingTestFiles(digest);
  return {
    failures,
    ...(failureFiles ? { failureFiles } : {}),
    testsExecuted: digest.testsExecuted,
    digestPath: digest.totalFailures > 0 ? digestPath : undefined,
    runners: digest.runners,
  };
}
