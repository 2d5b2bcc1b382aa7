/**
 * Controller overhead per iteration. A real loop through the real CLI: a scripted maker that writes a
 * different file each iteration and one trivial gate that always fails, so the loop never verifies and
 * runs to its iteration cap. Per iteration: the time from one `iteration_started` to the next, minus the
 * gate's own recorded duration. Baseline, in the same run: a plain bash loop doing the same git steps
 * (write, add, commit, diff from base, sha256 of the diff, checkout of the SHA in a second worktree, the
 * same gate), timed the same way. Several rounds, loopwright and bash interleaved; medians over all
 * iterations.
 */
import { join } from "node:path";
import {
  type BenchEvent,
  type BenchRow,
  type BenchSandbox,
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
const targetMs = 100;
const budgetExhaustedExit = 3;

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

export async function benchControllerOverhead(): Promise<BenchRow[]> {
  const sandbox = await createBenchSandbox();
  try {
    const base = await sandbox.git("rev-parse", "HEAD");
    const loopwright = { overhead: [] as number[], wall: [] as number[], gate: [] as number[] };
    const bash = { overhead: [] as number[], wall: [] as number[], gate: [] as number[] };
    const steps = new Map<string, number[]>();
    const roundRatios: string[] = [];
    for (let round = 1; round <= rounds; round++) {
      const measured = await measureLoopwright(sandbox, round, steps);
      const baseline = await measureBash(sandbox, round, base);
      for (const [target, source] of [
        [loopwright, measured],
        [bash, baseline],
      ] as const) {
        target.overhead.push(...source.overhead);
        target.wall.push(...source.wall);
        target.gate.push(...source.gate);
      }
      roundRatios.push((median(measured.overhead) / median(baseline.overhead)).toFixed(2));
    }
    const overhead = median(loopwright.overhead);
    const baselineOverhead = median(bash.overhead);
    return [
      {
        name: "controller overhead / iteration",
        median: overhead,
        baselineName: "bash loop, same git steps",
        baselineMedian: baselineOverhead,
        ratio: overhead / baselineOverhead,
        target: `< ${targetMs} ms`,
        met: overhead < targetMs,
        samples: loopwright.overhead,
        baselineSamples: bash.overhead,
        details: [
          `${loopwright.overhead.length} iterations in ${rounds} rounds; ratio per round: ${roundRatios.join(", ")}`,
          `gate itself (subtracted above): loopwright ${median(loopwright.gate).toFixed(1)} ms, bash ${median(bash.gate).toFixed(1)} ms`,
          `loopwright steps (median ms): ${describeMedians(steps)}`,
        ],
      },
      {
        name: "iteration wall time, gate included",
        median: median(loopwright.wall),
        baselineName: "bash loop, same git steps",
        baselineMedian: median(bash.wall),
        ratio: median(loopwright.wall) / median(bash.wall),
        target: "–",
        met: true,
        samples: loopwright.wall,
        baselineSamples: bash.wall,
        details: [],
      },
    ];
  } finally {
    await sandbox.cleanup();
  }
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
): Promise<IterationTimes> {
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
  await runLoopToEnd(sandbox, spec, budgetExhaustedExit);
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
  return times;
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
