/**
 * Start-up, measured on the build users install (dist/, `npm run build` first, through the package's
 * own bin) with a source column (the TypeScript sources through type stripping) for development:
 *
 * - `run` to the maker's first command: from spawning `loopwright run <spec>` to the maker's command
 *   writing `date +%s%N` (no setup commands). Target (build): ≤ 4× `node -e 0`.
 * - read-only commands `ls`, `show <loop>`, `validate <small spec>`: spawn to exit. Target (build):
 *   ≤ 2× `node -e 0`. `validate <small spec>` checks the same spec each sample: after the first it is
 *   read from the spec cache (src/core/spec-cache.ts). `validate <new spec>` checks a spec file it has
 *   never seen (a new path each sample), as CI on a fresh machine or a spec just edited: parsed from
 *   scratch, no target of its own, shown so that the cache does not hide the parser's cost. Each `run`
 *   sample is a new spec too; the row `run …, spec validated before` (no target of its own) runs a new
 *   spec that `validate` checked just before (untimed), as a user does: the run reads the spec cache.
 * - the controller's peak memory: `run` of a scripted loop over three iterations (verified at the third),
 *   peak RSS from `/usr/bin/time -f %M`, against `node -e 0`'s. Target: < 120 MB.
 *
 * Baseline in the same run, interleaved with every sample: spawn to exit of `node -e 0`. Medians.
 */
import { execFile, spawn } from "node:child_process";
import { readFile, rm } from "node:fs/promises";
import { join } from "node:path";
import { promisify } from "node:util";
import {
  type BenchRow,
  type BenchSandbox,
  binary,
  type CliFrom,
  collect,
  createBenchSandbox,
  describeMedians,
  epochMs,
  median,
} from "./support.ts";

const execFileAsync = promisify(execFile);
/** BENCH_STARTUP_SAMPLES=N: more rounds where the machine is noisy (7 by default). */
const samples = Number(process.env.BENCH_STARTUP_SAMPLES) || 7;
const memorySamples = 3;
const runRatioTarget = 4;
const readRatioTarget = 2;
const memoryTargetMb = 120;
const budgetExhaustedExit = 3;

export async function benchStartup(): Promise<BenchRow[]> {
  const rows: BenchRow[] = [];
  // BENCH_STARTUP_FROM=build (or source): that column only, to re-measure one quickly.
  const only = process.env.BENCH_STARTUP_FROM;
  for (const from of (["build", "source"] as const).filter((column) => !only || column === only)) {
    const sandbox = await createBenchSandbox({ from });
    try {
      rows.push(...(await startupRows(sandbox)), await memoryRow(sandbox));
    } finally {
      await sandbox.cleanup();
    }
  }
  return rows;
}

/**
 * BENCH_STARTUP_BEFORE=<another checkout's bin/loopwright.js, built>: the build column's rows are measured
 * for that bin too, interleaved sample by sample with this one's against the same `node -e 0` samples
 * (rows marked `before`), so that a change's before and after are ratios of one run.
 */
const beforeBinary = process.env.BENCH_STARTUP_BEFORE || undefined;

async function startupRows(sandbox: BenchSandbox): Promise<BenchRow[]> {
  const variants: { label: string; prefix: string; sandbox: BenchSandbox }[] = [
    { label: "", prefix: "", sandbox },
  ];
  if (beforeBinary && sandbox.from === "build") {
    const spawnCli = (args: string[]) =>
      spawn(process.execPath, [beforeBinary, ...args], {
        cwd: sandbox.repo,
        env: sandbox.env,
        stdio: ["ignore", "pipe", "pipe"],
      });
    variants.push({ label: ", before", prefix: "before-", sandbox: { ...sandbox, spawnCli } });
  }
  const node: number[] = [];
  const measured = [];
  for (const variant of variants) measured.push(await startupMeasures(variant.sandbox, variant.prefix));
  for (let sample = 1; sample <= samples; sample++) {
    // Each bin goes first in turn: whatever the one before leaves (processes ending, cache writes) falls
    // on both alike.
    const order = sample % 2 === 0 ? [...measured].reverse() : measured;
    for (const measures of order) await measures.sample(sample, node);
  }
  return measured.flatMap((measures, index) => measures.rows(median(node), node, variants[index].label));
}

/** One bin's measures: `sample` takes one round of each (a `node -e 0` after each), `rows` reads them. */
async function startupMeasures(sandbox: BenchSandbox, prefix: string) {
  const column = columnName(sandbox.from);
  const build = sandbox.from === "build";
  const smallSpec = (name: string) =>
    sandbox.spec(
      name,
      `name: ${name}
goal: A small spec to validate.
repo: ./repo
maker: { engine: command, run: "true" }
verifier: { engine: command, run: "cat" }
gates:
  - { id: tests, kind: tests-pass, run: "true" }
`,
    );
  const small = await smallSpec(`${prefix}small`);
  // `show` needs a loop: the first startup sample leaves one (startup-1).
  const measures: Record<
    string,
    { args: (sample: number) => Promise<string[]>; values: number[]; target?: number }
  > = {
    ls: { args: async () => ["ls"], values: [], target: readRatioTarget },
    "show <loop>": { args: async () => ["show", `${prefix}startup-1`], values: [], target: readRatioTarget },
    "validate <small spec>": { args: async () => ["validate", small], values: [], target: readRatioTarget },
    "validate <new spec>, not cached": {
      args: async (sample) => ["validate", await smallSpec(`${prefix}new-${sample}`)],
      values: [],
    },
  };
  const startup: number[] = [];
  const validatedStartup: number[] = [];
  const phases = new Map<string, number[]>();
  const validatedPhases = new Map<string, number[]>();
  const sample = async (sample: number, node: number[]) => {
    startup.push(await timeToFirstCommand(sandbox, sample, phases, false, prefix));
    node.push(await nodeStartup());
    validatedStartup.push(await timeToFirstCommand(sandbox, sample, validatedPhases, true, prefix));
    node.push(await nodeStartup());
    for (const measure of Object.values(measures)) {
      measure.values.push(await timeCommand(sandbox, await measure.args(sample)));
      node.push(await nodeStartup());
    }
  };
  const rows = (nodeMedian: number, node: number[], label: string): BenchRow[] => {
    /** `ratioTarget` undefined: a row shown for what it tells, with no target (`–`). */
    const row = (name: string, values: number[], ratioTarget: number | undefined): BenchRow => {
      const ratio = median(values) / nodeMedian;
      return {
        name: `${name} (${column}${label})`,
        median: median(values),
        baselineName: "node -e 0",
        baselineMedian: nodeMedian,
        ratio,
        target: build && ratioTarget !== undefined ? `≤ ${ratioTarget}×` : "–",
        met: ratioTarget === undefined || ratio <= ratioTarget,
        samples: values,
        baselineSamples: node,
        details: [],
      };
    };
    const first = row("run → maker's first command", startup, runRatioTarget);
    first.details.push(`from spawn (median ms, cumulative): ${describeMedians(phases)}`);
    const validated = row("run → maker's first command, spec validated before", validatedStartup, undefined);
    validated.details.push(`from spawn (median ms, cumulative): ${describeMedians(validatedPhases)}`);
    return [
      first,
      validated,
      ...Object.entries(measures).map(([name, measure]) => row(name, measure.values, measure.target)),
    ];
  };
  return { sample, rows };
}

function columnName(from: CliFrom): string {
  return from === "build" ? "build: dist/" : "source: src/*.ts";
}

/**
 * Spawn of `loopwright run` to the maker's first command, for a new spec file (`startup-<sample>`); with
 * `validatedFirst`, the spec (`validated-<sample>`) is checked with `validate` first (not timed), as a user
 * does before a run: the run then reads it from the spec cache.
 */
async function timeToFirstCommand(
  sandbox: BenchSandbox,
  sample: number,
  phases: Map<string, number[]>,
  validatedFirst = false,
  prefix = "",
): Promise<number> {
  const name = `${prefix}${validatedFirst ? "validated" : "startup"}-${sample}`;
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
  if (validatedFirst) await timeCommand(sandbox, ["validate", spec]);
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

/** Spawn to exit of `loopwright <args>`, which must exit 0. */
async function timeCommand(sandbox: BenchSandbox, args: string[]): Promise<number> {
  const started = epochMs();
  const child = sandbox.spawnCli(args);
  let output = "";
  child.stdout?.on("data", (chunk) => {
    output += chunk;
  });
  child.stderr?.on("data", (chunk) => {
    output += chunk;
  });
  const code = await new Promise<number | null>((resolve) => child.on("close", resolve));
  const elapsed = epochMs() - started;
  if (code !== 0) throw new Error(`loopwright ${args.join(" ")} exited ${code}:\n${output}`);
  return elapsed;
}

/** Spawn to exit of `node -e 0`, the floor of any Node.js CLI. */
async function nodeStartup(): Promise<number> {
  const started = epochMs();
  const child = spawn(process.execPath, ["-e", "0"], { stdio: "ignore" });
  await new Promise((resolve) => child.on("exit", resolve));
  return epochMs() - started;
}

/**
 * Peak RSS (MB) of the controller of one loop: `loopwright run` of a scripted loop whose gate goes green
 * at the third iteration, the scripted verifier approving; against `node -e 0` under the same measure.
 */
async function memoryRow(sandbox: BenchSandbox): Promise<BenchRow> {
  const peaks: number[] = [];
  const node: number[] = [];
  for (let sample = 1; sample <= memorySamples; sample++) {
    const name = `memory-${sample}`;
    const spec = await sandbox.spec(
      name,
      `name: ${name}
goal: n.txt holds 3.
repo: ./repo
maker:
  engine: scripted
  turns:
    - write: { n.txt: "{{iteration}}\\n" }
gates:
  - { id: three, kind: tests-pass, run: "grep -qx 3 n.txt" }
budget: { maxIterations: 4 }
`,
    );
    peaks.push(await peakRssMb([binary, "run", spec], sandbox, 0));
    node.push(await peakRssMb(["-e", "0"], sandbox, 0));
  }
  return {
    name: `controller peak RSS, scripted run of 3 iterations (${columnName(sandbox.from)})`,
    median: median(peaks),
    baselineName: "node -e 0",
    baselineMedian: median(node),
    ratio: median(peaks) / median(node),
    target: `< ${memoryTargetMb} MB`,
    met: median(peaks) < memoryTargetMb,
    samples: peaks,
    baselineSamples: node,
    details: [],
    unit: "MB",
  };
}

/** The peak RSS in MB of `node <args>` (and of any child larger than it), via `/usr/bin/time -f %M`. */
async function peakRssMb(args: string[], sandbox: BenchSandbox, expectedExit: number): Promise<number> {
  const report = join(sandbox.root, "time.out");
  let code = 0;
  let output = "";
  try {
    const result = await execFileAsync(
      "/usr/bin/time",
      ["-f", "%M", "-o", report, process.execPath, ...args],
      { cwd: sandbox.repo, env: sandbox.env, maxBuffer: 16 * 1024 * 1024 },
    );
    output = result.stdout + result.stderr;
  } catch (error) {
    const failed = error as { code?: number; stdout?: string; stderr?: string };
    code = failed.code ?? -1;
    output = `${failed.stdout ?? ""}${failed.stderr ?? ""}`;
  }
  if (code !== expectedExit) throw new Error(`node ${args.join(" ")} exited ${code}:\n${output}`);
  const text = await readFile(report, "utf8");
  await rm(report, { force: true });
  const kilobytes = Number(text.trim().split("\n").at(-1));
  return kilobytes / 1024;
}
