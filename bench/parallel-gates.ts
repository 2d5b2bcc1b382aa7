/**
 * Parallel gates: a loop with four gates that each sleep one second (and fail, so no verifier turn and
 * no confirming re-run follow). Gate wall time of an iteration = first `gate_started` to last
 * `gate_ended`. Baseline, in the same run: the same loop with a single such gate. Several rounds,
 * interleaved; medians over all iterations.
 */
import {
  type BenchEvent,
  type BenchRow,
  type BenchSandbox,
  createBenchSandbox,
  median,
  runLoopToEnd,
} from "./support.ts";

const rounds = 2;
const iterationsPerRound = 3;
const gateCommand = "sleep 1; false";
const targetMs = 1150;
const budgetExhaustedExit = 3;

export async function benchParallelGates(): Promise<BenchRow[]> {
  const sandbox = await createBenchSandbox();
  try {
    const four: number[] = [];
    const one: number[] = [];
    const ratios: string[] = [];
    for (let round = 1; round <= rounds; round++) {
      const fourGates = await gatePhaseTimes(sandbox, `four-gates-${round}`, 4);
      const oneGate = await gatePhaseTimes(sandbox, `one-gate-${round}`, 1);
      four.push(...fourGates);
      one.push(...oneGate);
      ratios.push((median(fourGates) / median(oneGate)).toFixed(2));
    }
    return [
      {
        name: "4 parallel 1 s gates: gate wall",
        median: median(four),
        baselineName: "one 1 s gate",
        baselineMedian: median(one),
        ratio: median(four) / median(one),
        target: `≤ ${targetMs} ms`,
        met: median(four) <= targetMs,
        samples: four,
        baselineSamples: one,
        details: [`${four.length} iterations in ${rounds} rounds; ratio per round: ${ratios.join(", ")}`],
      },
    ];
  } finally {
    await sandbox.cleanup();
  }
}

/** Runs a loop with `count` sleeping gates and returns each iteration's gate wall time. */
async function gatePhaseTimes(sandbox: BenchSandbox, name: string, count: number): Promise<number[]> {
  const gates = Array.from(
    { length: count },
    (_, index) => `  - { id: sleep-${index + 1}, kind: tests-pass, run: "${gateCommand}" }`,
  ).join("\n");
  const spec = await sandbox.spec(
    name,
    `name: ${name}
goal: A goal no iteration reaches.
repo: ./repo
maker:
  engine: scripted
  turns:
    - write: { work.txt: "iteration {{iteration}}\\n" }
gates:
${gates}
budget: { maxIterations: ${iterationsPerRound} }
`,
  );
  await runLoopToEnd(sandbox, spec, budgetExhaustedExit);
  const events = sandbox.events(name);
  const times: number[] = [];
  for (let iteration = 1; iteration <= iterationsPerRound; iteration++) {
    const ofIteration = (type: string) =>
      events.filter(
        (event: BenchEvent) =>
          event.type === type &&
          event.data.iteration === iteration &&
          (event.data.phase ?? (event.data.result as { phase?: string } | undefined)?.phase) === "grade",
      );
    const started = ofIteration("gate_started");
    const ended = ofIteration("gate_ended");
    if (started.length !== count || ended.length !== count) {
      throw new Error(`loop ${name} iteration ${iteration}: expected ${count} gate runs`);
    }
    times.push(Math.max(...ended.map((event) => event.at)) - Math.min(...started.map((event) => event.at)));
  }
  return times;
}
