/**
 * Streak reruns: after a red run of a 500-test `node --test` suite (20 files of 25 tests, each test
 * awaiting 5 ms of timers, one of them failing), the recheck reruns only the failing test with the
 * command loopwright derives (`--test-name-pattern` and the failing test's file, which the digest of the
 * red run points at), through the same `runGates` the loop uses. Also timed: the name pattern alone
 * (every test file still starts a process). The
 * baseline, in the same run: the full suite again, which is what a rerun without `rerunFailed` costs.
 * Rounds interleaved; medians.
 */
import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { digestLog } from "../src/gates/digest/index.ts";
import { recheckCommand } from "../src/gates/recheck-command.ts";
import { runGates } from "../src/gates/run-gates.ts";
import { failingTestFiles } from "../src/loop/steps/run-gate-phase.ts";
import { type BenchRow, median } from "./support.ts";

const files = 20;
const testsPerFile = 25;
const rounds = 5;
const failing = "test 7 of file 3";
const targetRatio = 0.5;

export async function benchStreakRerun(): Promise<BenchRow[]> {
  const root = await mkdtemp(join(tmpdir(), "loopwright-bench-streak-"));
  try {
    await mkdir(join(root, "test"));
    for (let file = 1; file <= files; file++) {
      const tests = Array.from({ length: testsPerFile }, (_, index) => {
        const name = `test ${index + 1} of file ${file}`;
        const check = name === failing ? "assert.equal(1 + 1, 3);" : "assert.equal(1 + 1, 2);";
        return `test(${JSON.stringify(name)}, async () => {\n  await sleep(5);\n  ${check}\n});`;
      });
      await writeFile(
        join(root, "test", `file-${file}.test.mjs`),
        `import assert from "node:assert/strict";\nimport { test } from "node:test";\nimport { setTimeout as sleep } from "node:timers/promises";\n${tests.join("\n")}\n`,
      );
    }
    const full = "node --test";
    // The failing test's name and file, as the loop reads them from the red run's digest.
    const red = await runGates(
      [{ id: "red", kind: "tests-pass", command: full, timeoutMs: 300_000, parallel: true }],
      {
        cwd: root,
        logDirectory: join(root, "logs"),
        runId: "bench",
        stepPrefix: "red",
      },
    );
    const digest = await digestLog(red[0].logPath, { root, logPath: red[0].logPath });
    const names = digest.failures.map((failure) => failure.name);
    const narrowed = recheckCommand(full, names, failingTestFiles(digest));
    const byName = recheckCommand(full, names);
    if (!narrowed || !byName) throw new Error("node --test was not narrowed");
    const fullTimes: number[] = [];
    const narrowedTimes: number[] = [];
    const byNameTimes: number[] = [];
    for (let round = 1; round <= rounds; round++) {
      fullTimes.push(await timed(root, full, `full-${round}`, false));
      narrowedTimes.push(await timed(root, narrowed, `narrowed-${round}`, true));
      byNameTimes.push(await timed(root, byName, `by-name-${round}`, true));
    }
    const rerun = median(narrowedTimes);
    const whole = median(fullTimes);
    const nameOnly = median(byNameTimes);
    return [
      {
        name: `streak recheck: 1 failing of ${files * testsPerFile} (rerunFailed)`,
        median: rerun,
        baselineName: "full rerun",
        baselineMedian: whole,
        ratio: rerun / whole,
        target: `< ${targetRatio}×`,
        met: rerun / whole < targetRatio,
        samples: narrowedTimes,
        baselineSamples: fullTimes,
        details: [`narrowed command: ${narrowed}`],
      },
      {
        name: "streak recheck by name pattern only",
        median: nameOnly,
        baselineName: "full rerun",
        baselineMedian: whole,
        ratio: nameOnly / whole,
        target: "–",
        met: true,
        samples: byNameTimes,
        baselineSamples: fullTimes,
        details: [`command: ${byName}`],
      },
    ];
  } finally {
    await rm(root, { recursive: true, force: true });
  }
}

/** Runs `command` as a gate and returns its wall time; checks that it failed (full) or passed-nothing-else. */
async function timed(cwd: string, command: string, id: string, narrowed: boolean): Promise<number> {
  const [outcome] = await runGates(
    [{ id, kind: "tests-pass", command, timeoutMs: 300_000, parallel: true }],
    {
      cwd,
      logDirectory: join(cwd, "logs"),
      runId: "bench",
      stepPrefix: id,
    },
  );
  if (outcome.passed) throw new Error(`${id}: the failing test passed (${narrowed ? "narrowed" : "full"})`);
  return outcome.durationMs;
}
