/**
 * Controller overhead per iteration. A real loop through the real CLI: a scripted maker that writes a
 * different file each iteration and one trivial gate that always fails, so the loop never verifies and
 * runs to its iteration cap. Per iteration: the time from one `iteration_started` to the next, minus the
 * gate's own recorded duration. Baseline, in the same run: a plain bash loop doing the same git steps
 * (write, add, commit, diff from base, sha256 of the diff, checkout of the SHA in a second worktree, the
 * same gate), timed the same way. The CLI runs from the build (dist/, what users install) and from the
 * sources; several rounds, build, source and bash interleaved; medians over all iterations. The git
 * processes the controller starts are counted (LOOPWRIGHT_GIT_TRACE) beside the bash loop's five.
 */
import { readFile, rm } from "node:fs/promises";
import { join } from "node:path";
import {
  type BenchEvent,
  type BenchRow,
  type BenchSandbox,
  type CliFrom,
  collect,
  createBenchSandbox,
  describeMedians,
  median,
  runBash,
  runLoopToEnd,
} from "./support.ts";

const rounds = 3;
const iterationsPerRound = 25;
const gateCommand = "test -f never";
/** The target: the controller's own work per iteration at most twice the bash loop's. */
const targetRatio = 2;
const budgetExhaustedExit = 3;
/** git processes per iteration of the bash loop: add, commit, rev-parse, diff, checkout. */
const bashGitProcesses = 5;

/** The gap before each event of an iteration, named for the step that fills it. */
const stepBefore: Record<string, string> = {
  maker_started: "maker start",
  maker_ended: "maker",
  commit_created: "commit",
  change_screened: "screen",
  gate_started: "gate checkout",
  gate_ended: "gate",
  iteration_ended: "decide",
  iteration_started: "next brief",
};

interface Column {
  from: CliFrom;
  sandbox: BenchSandbox;
  times: IterationTimes;
  steps: Map<string, number[]>;
  roundRatios: string[];
  gitPerIteration: number[];
}

export async function benchControllerOverhead(): Promise<BenchRow[]> {
  const columns: Column[] = [];
  try {
    for (const from of ["build", "source"] as const) {
      const sandbox = await createBenchSandbox({ from });
      columns.push({
        from,
        sandbox,
        times: { overhead: [], wall: [], gate: [] },
        steps: new Map(),
        roundRatios: [],
        gitPerIteration: [],
      });
    }
    const bashSandbox = columns[0].sandbox;
    const base = await bashSandbox.git("rev-parse", "HEAD");
    const bash: IterationTimes = { overhead: [], wall: [], gate: [] };
    for (let round = 1; round <= rounds; round++) {
      const measured = [];
      for (const column of columns) {
        const result = await measureLoopwright(column.sandbox, round, column.steps);
        append(column.times, result.times);
        column.gitPerIteration.push(result.gitPerIteration);
        measured.push(result.times);
      }
      const baseline = await measureBash(bashSandbox, round, base);
      append(bash, baseline);
      for (const [index, column] of columns.entries()) {
        column.roundRatios.push((median(measured[index].overhead) / median(baseline.overhead)).toFixed(2));
      }
    }
    const baselineOverhead = median(bash.overhead);
    const rows: BenchRow[] = columns.map((column) => {
      const overhead = median(column.times.overhead);
      return {
        name: `controller overhead / iteration (${column.from})`,
        median: overhead,
        baselineName: "bash loop, same git steps",
        baselineMedian: baselineOverhead,
        ratio: overhead / baselineOverhead,
        target: `≤ ${targetRatio}× bash`,
        met: overhead / baselineOverhead <= targetRatio,
        samples: column.times.overhead,
        baselineSamples: bash.overhead,
        details: [
          `${column.times.overhead.length} iterations in ${rounds} rounds; ratio per round: ${column.roundRatios.join(", ")}`,
          `git processes per iteration: ${median(column.gitPerIteration).toFixed(1)} (bash loop: ${bashGitProcesses} and sha256sum)`,
          `gate itself (subtracted above): loopwright ${median(column.times.gate).toFixed(1)} ms, bash ${median(bash.gate).toFixed(1)} ms`,
          `loopwright steps (median ms): ${describeMedians(column.steps)}`,
        ],
      };
    });
    const build = columns[0].times;
    rows.push({
      name: "iteration wall time, gate included (build)",
      median: median(build.wall),
      baselineName: "bash loop, same git steps",
      baselineMedian: median(bash.wall),
      ratio: median(build.wall) / median(bash.wall),
      target: "–",
      met: true,
      samples: build.wall,
      baselineSamples: bash.wall,
      details: [],
    });
    return rows;
  } finally {
    for (const column of columns) await column.sandbox.cleanup();
  }
}

function append(target: IterationTimes, source: IterationTimes): void {
  target.overhead.push(...source.overhead);
  target.wall.push(...source.wall);
  target.gate.push(...source.gate);
}

interface IterationTimes {
  overhead: number[];
  wall: number[];
  gate: number[];
}

async function measureLoopwright(
  sandbox: BenchSandbox,
  round: number,
  steps: Map<string, number[]>,
): Promise<{ times: IterationTimes; gitPerIteration: number }> {
  const name = `overhead-${round}`;
  const spec = await sandbox.spec(
    name,
    `name: ${name}
goal: A goal no iteration reaches, so every iteration runs the whole cycle.
repo: ./repo
maker:
  engine: scripted
  turns:
    - write: { work.txt: "iteration {{iteration}}\\n" }
gates:
  - { id: never, kind: tests-pass, run: "${gateCommand}" }
budget: { maxIterations: ${iterationsPerRound} }
`,
  );
  // The CLI's environment is the sandbox's: the trace file is named there for this run only.
  const trace = join(sandbox.root, `${name}.git-trace`);
  sandbox.env.LOOPWRIGHT_GIT_TRACE = trace;
  try {
    await runLoopToEnd(sandbox, spec, budgetExhaustedExit);
  } finally {
    delete sandbox.env.LOOPWRIGHT_GIT_TRACE;
  }
  // A build without the trace (an older loopwright measured for comparison) writes none.
  const gitStarts = (await readFile(trace, "utf8").catch(() => ""))
    .split("\n")
    .filter(Boolean)
    .map((line) => Number(line.split(" ")[0]));
  await rm(trace, { force: true });
  const events = sandbox.events(name);
  const starts = events.filter((event) => event.type === "iteration_started");
  if (starts.length !== iterationsPerRound) {
    throw new Error(`loop ${name} ran ${starts.length} iterations, expected ${iterationsPerRound}`);
  }
  const times: IterationTimes = { overhead: [], wall: [], gate: [] };
  // Start to next start covers the whole cycle, the brief of the next iteration included.
  for (let index = 0; index + 1 < starts.length; index++) {
    const iteration = starts[index].data.iteration as number;
    const wall = starts[index + 1].at - starts[index].at;
    const gate = gateDuration(events, iteration);
    times.wall.push(wall);
    times.gate.push(gate);
    times.overhead.push(wall - gate);
    const cycle = events.filter(
      (event) => event.seq > starts[index].seq && event.seq <= starts[index + 1].seq,
    );
    let previous = starts[index];
    for (const event of cycle) {
      collect(steps, stepBefore[event.type] ?? event.type, event.at - previous.at);
      previous = event;
    }
  }
  // git processes started between the first and the last iteration_started: whole cycles only.
  const first = starts[0].at;
  const last = starts[starts.length - 1].at;
  const inCycles = gitStarts.filter((at) => at >= first && at < last).length;
  return { times, gitPerIteration: gitStarts.length === 0 ? Number.NaN : inCycles / (starts.length - 1) };
}

/** The gate's own time in an iteration: its graded run and its recheck (a red gate is run twice). */
function gateDuration(events: BenchEvent[], iteration: number): number {
  const ended = events.filter((event) => event.type === "gate_ended" && event.data.iteration === iteration);
  if (ended.length === 0) throw new Error(`iteration ${iteration} has no gate_ended event`);
  return ended.reduce((total, event) => total + (event.data.result as { durationMs: number }).durationMs, 0);
}

/**
 * The same git steps in plain bash, in worktrees laid out like loopwright's (a branch worktree for the
 * maker, a detached one for the gate). Each iteration prints four $EPOCHREALTIME stamps: start, gate
 * start, gate end, end.
 */
async function measureBash(sandbox: BenchSandbox, round: number, base: string): Promise<IterationTimes> {
  const maker = join(sandbox.root, `bash-${round}`, "maker");
  const gates = join(sandbox.root, `bash-${round}`, "gates");
  await sandbox.git("worktree", "add", "-q", "-b", `bash-${round}`, maker, base);
  await sandbox.git("worktree", "add", "-q", "--detach", gates, base);
  const script = `
set -eu
cd "$MAKER"
for ((i = 1; i <= ITERATIONS; i++)); do
  start=$EPOCHREALTIME
  printf 'iteration %s\\n' "$i" > work.txt
  git add --all
  git -c user.name=loopwright -c user.email=loopwright@localhost commit --quiet --no-verify -m "bench iteration $i"
  sha=$(git rev-parse HEAD)
  hash=$(git diff "$BASE" "$sha" | sha256sum)
  git -C "$GATES" checkout --quiet --force --detach "$sha"
  gate_start=$EPOCHREALTIME
  # A red gate is run again on the same commit before the iteration ends, as loopwright does.
  (cd "$GATES" && exec sh -c "$GATE") || (cd "$GATES" && exec sh -c "$GATE") || true
  gate_end=$EPOCHREALTIME
  echo "$start $gate_start $gate_end $EPOCHREALTIME"
done
`;
  const stdout = await runBash(script, sandbox.repo, {
    ...sandbox.env,
    MAKER: maker,
    GATES: gates,
    BASE: base,
    GATE: gateCommand,
    ITERATIONS: String(iterationsPerRound),
  });
  const times: IterationTimes = { overhead: [], wall: [], gate: [] };
  for (const line of stdout.trim().split("\n")) {
    const [start, gateStart, gateEnd, end] = line.split(" ").map((stamp) => Number(stamp) * 1000);
    times.wall.push(end - start);
    times.gate.push(gateEnd - gateStart);
    times.overhead.push(end - start - (gateEnd - gateStart));
  }
  return times;
}
