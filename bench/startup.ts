/**
 * Startup: the time from spawning `loopwright run <spec>` to the first command of the loop starting. The
 * maker is a command whose first action writes `date +%s%N`; it is compared with the wall clock taken
 * just before the spawn. No setup commands. Baseline, in the same run: spawn to exit of `node -e 0`.
 * Interleaved; medians.
 */
import { spawn } from "node:child_process";
import { readFile } from "node:fs/promises";
import { join } from "node:path";
import {
  type BenchRow,
  type BenchSandbox,
  collect,
  createBenchSandbox,
  describeMedians,
  epochMs,
  median,
} from "./support.ts";

const samples = 5;
const targetMs = 1000;
const budgetExhaustedExit = 3;

export async function benchStartup(): Promise<BenchRow[]> {
  const sandbox = await createBenchSandbox();
  try {
    const startup: number[] = [];
    const node: number[] = [];
    const phases = new Map<string, number[]>();
    for (let sample = 1; sample <= samples; sample++) {
      startup.push(await timeToFirstCommand(sandbox, sample, phases));
      node.push(await nodeStartup());
    }
    return [
      {
        name: "run → first command of the loop",
        median: median(startup),
        baselineName: "node -e 0",
        baselineMedian: median(node),
        ratio: median(startup) / median(node),
        target: `< ${targetMs} ms`,
        met: median(startup) < targetMs,
        samples: startup,
        baselineSamples: node,
        details: [`from spawn (median ms, cumulative): ${describeMedians(phases)}`],
      },
    ];
  } finally {
    await sandbox.cleanup();
  }
}

async function timeToFirstCommand(
  sandbox: BenchSandbox,
  sample: number,
  phases: Map<string, number[]>,
): Promise<number> {
  const name = `startup-${sample}`;
  const stamp = join(sandbox.root, `${name}.stamp`);
  const spec = await sandbox.spec(
    name,
    `name: ${name}
goal: Measure how fast the first command starts.
repo: ./repo
maker: { engine: command, run: "date +%s%N > ${stamp}" }
verifier: { engine: command, run: "cat" }
gates:
  - { id: fails, kind: tests-pass, run: "false" }
budget: { maxIterations: 1 }
`,
  );
  const spawnedAt = epochMs();
  const child = sandbox.spawnCli(["run", spec]);
  let output = "";
  child.stdout?.on("data", (chunk) => {
    output += chunk;
  });
  child.stderr?.on("data", (chunk) => {
    output += chunk;
  });
  const code = await new Promise<number | null>((resolve) => child.on("close", resolve));
  if (code !== budgetExhaustedExit) {
    throw new Error(`loopwright run ${spec} exited ${code}, expected ${budgetExhaustedExit}:\n${output}`);
  }
  const startedNs = BigInt((await readFile(stamp, "utf8")).trim());
  const firstCommand = Number(startedNs / 1000n) / 1000 - spawnedAt;
  const events = sandbox.events(name);
  for (const type of ["run_started", "loop_prepared", "maker_started"]) {
    const event = events.find((candidate) => candidate.type === type);
    if (event) collect(phases, type, event.at - spawnedAt);
  }
  collect(phases, "first command", firstCommand);
  return firstCommand;
}

/** Spawn to exit of `node -e 0`, the floor of any Node.js CLI. */
async function nodeStartup(): Promise<number> {
  const started = epochMs();
  const child = spawn(process.execPath, ["-e", "0"], { stdio: "ignore" });
  await new Promise((resolve) => child.on("exit", resolve));
  return epochMs() - started;
}
