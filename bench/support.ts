/**
 * What the benchmarks share: a sandbox (a real git repository in a temp folder, a private
 * LOOPWRIGHT_HOME, git isolated from the machine's configuration), the real CLI as a child process,
 * the timeline read straight from the SQLite store, and the result rows the runner prints.
 */
import { type ChildProcess, execFile, spawn } from "node:child_process";
import { existsSync } from "node:fs";
import { mkdir, mkdtemp, realpath, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { DatabaseSync } from "node:sqlite";
import { promisify } from "node:util";

const execFileAsync = promisify(execFile);
/** The package's own bin, as `npm install` links it. */
export const binary = new URL("../bin/loopwright.js", import.meta.url).pathname;
const packageRoot = new URL("..", import.meta.url).pathname;

/**
 * Which code the CLI runs: `build` is what users install (dist/, compiled by `npm run build`),
 * `source` the TypeScript sources through Node's type stripping (a checkout, development).
 */
export type CliFrom = "build" | "source";

let build: Promise<void> | undefined;

/**
 * Runs `npm run build` once per benchmark process; every later call awaits that same build. With
 * BENCH_BUILD=0 it reuses dist/ as it is (when it exists): for re-running one benchmark quickly.
 */
export function buildOnce(): Promise<void> {
  build ??= (async () => {
    if (process.env.BENCH_BUILD === "0" && existsSync(join(packageRoot, "dist", "cli", "main.js"))) return;
    const started = performance.now();
    process.stderr.write("building dist/ (npm run build)…\n");
    await execFileAsync("npm", ["run", "build"], { cwd: packageRoot, maxBuffer: 16 * 1024 * 1024 });
    process.stderr.write(`built in ${formatMs(performance.now() - started)}\n`);
  })();
  return build;
}

/** The environment that makes bin/loopwright.js run `from` (LOOPWRIGHT_FROM), merged into `env`. */
export function cliEnv(from: CliFrom, env: NodeJS.ProcessEnv = process.env): NodeJS.ProcessEnv {
  return { ...env, LOOPWRIGHT_FROM: from === "build" ? "dist" : "src" };
}

/** One line of the result table. Times are milliseconds; `ratio` is median / baseline median. */
export interface BenchRow {
  name: string;
  median: number;
  baselineName: string;
  baselineMedian: number;
  ratio: number;
  /** How the target reads, e.g. `< 100 ms`. */
  target: string;
  met: boolean;
  samples: number[];
  baselineSamples: number[];
  /** Extra lines printed under the table: where the time goes, spreads. */
  details: string[];
  /** What `median` and `baselineMedian` measure: milliseconds unless said (`MB`: peak memory). */
  unit?: "ms" | "MB";
}

/** A stored event as the benchmarks need it: `at` in epoch milliseconds. */
export interface BenchEvent {
  seq: number;
  type: string;
  at: number;
  data: Record<string, unknown>;
}

export interface BenchSandbox {
  /** The code the CLI runs in this sandbox. */
  from: CliFrom;
  root: string;
  repo: string;
  home: string;
  env: NodeJS.ProcessEnv;
  git(...args: string[]): Promise<string>;
  /** Writes a spec file in the sandbox root (outside the repository) and returns its path. */
  spec(name: string, text: string): Promise<string>;
  /** Starts `loopwright <args>` with the sandbox's environment, in the repository. */
  spawnCli(args: string[]): ChildProcess;
  /** Runs `loopwright <args>` to completion; rejects on a timeout. */
  cli(args: string[], timeoutMs?: number): Promise<{ code: number | null; output: string }>;
  /** Every event of the loop named `name`, in order. */
  events(name: string): BenchEvent[];
  cleanup(): Promise<void>;
}

/**
 * `parent`: where the sandbox's folder goes (default the temp folder); `/dev/shm` when a benchmark
 * writes far more than it measures (SQLite's fsync per append is free on tmpfs). `from`: the code the
 * CLI runs (default `build`, built once per run by `buildOnce`); `sandbox.env` carries the choice.
 */
export async function createBenchSandbox(
  options: { parent?: string; from?: CliFrom } = {},
): Promise<BenchSandbox> {
  const from = options.from ?? "build";
  if (from === "build") await buildOnce();
  const root = await realpath(await mkdtemp(join(options.parent ?? tmpdir(), "loopwright-bench-")));
  const repo = join(root, "repo");
  const home = join(root, "home");
  await mkdir(repo, { recursive: true });
  const gitConfig = join(root, "gitconfig");
  await writeFile(gitConfig, "");
  const env: NodeJS.ProcessEnv = {
    ...cliEnv(from),
    LOOPWRIGHT_HOME: home,
    GIT_CONFIG_GLOBAL: gitConfig,
    GIT_CONFIG_NOSYSTEM: "1",
    LC_ALL: "C",
  };
  for (const name of ["GIT_AUTHOR_NAME", "GIT_AUTHOR_EMAIL", "GIT_COMMITTER_NAME", "GIT_COMMITTER_EMAIL"]) {
    delete env[name];
  }
  const git = async (...args: string[]) =>
    (
      await execFileAsync("git", ["-c", "user.name=Bench", "-c", "user.email=bench@example.com", ...args], {
        cwd: repo,
        env,
      })
    ).stdout.trim();
  await git("init", "-q", "-b", "main");
  await writeFile(join(repo, "README.md"), "# bench\n");
  await git("add", "-A");
  await git("commit", "-q", "-m", "initial");
  // BENCH_NODE_ARGS="--cpu-prof --cpu-prof-dir=/tmp/prof": node options for the CLI processes (to profile them).
  const nodeArgs = (process.env.BENCH_NODE_ARGS ?? "").split(" ").filter(Boolean);
  const spawnCli = (args: string[]) =>
    spawn(process.execPath, [...nodeArgs, binary, ...args], {
      cwd: repo,
      env,
      stdio: ["ignore", "pipe", "pipe"],
    });
  return {
    from,
    root,
    repo,
    home,
    env,
    git,
    spec: async (name, text) => {
      const path = join(root, `${name}.yaml`);
      await writeFile(path, text);
      return path;
    },
    spawnCli,
    cli: (args, timeoutMs = 300_000) =>
      new Promise((resolve, reject) => {
        const child = spawnCli(args);
        let output = "";
        child.stdout?.on("data", (chunk) => {
          output += chunk;
        });
        child.stderr?.on("data", (chunk) => {
          output += chunk;
        });
        const timer = setTimeout(() => {
          child.kill("SIGKILL");
          reject(new Error(`loopwright ${args.join(" ")} took over ${timeoutMs} ms:\n${output}`));
        }, timeoutMs);
        child.on("close", (code) => {
          clearTimeout(timer);
          resolve({ code, output });
        });
      }),
    events: (name) => readEvents(join(home, "loopwright.db"), name),
    cleanup: () => rm(root, { recursive: true, force: true }),
  };
}

/** Runs a loop to its end and checks it stopped the way the benchmark expects. */
export async function runLoopToEnd(
  sandbox: BenchSandbox,
  specPath: string,
  expectedExit: number,
): Promise<void> {
  const run = await sandbox.cli(["run", specPath]);
  if (run.code !== expectedExit) {
    throw new Error(
      `loopwright run ${specPath} exited ${run.code}, expected ${expectedExit}:\n${run.output}`,
    );
  }
}

function readEvents(databasePath: string, loopName: string): BenchEvent[] {
  const database = new DatabaseSync(databasePath, { readOnly: true });
  try {
    const rows = database
      .prepare(
        `SELECT events.seq, events.type, events.at, events.data FROM events
         JOIN loops ON loops.id = events.loop_id WHERE loops.name = ? ORDER BY events.seq`,
      )
      .all(loopName) as unknown as { seq: number; type: string; at: string; data: string }[];
    return rows.map((row) => ({
      seq: row.seq,
      type: row.type,
      at: Date.parse(row.at),
      data: JSON.parse(row.data),
    }));
  } finally {
    database.close();
  }
}

/** Runs a bash script with `bash -c` and returns its stdout; rejects when it fails. */
export async function runBash(script: string, cwd: string, env: NodeJS.ProcessEnv): Promise<string> {
  const { stdout } = await execFileAsync("bash", ["-c", script], { cwd, env, maxBuffer: 16 * 1024 * 1024 });
  return stdout;
}

/** The current wall-clock time in epoch milliseconds, with sub-millisecond precision. */
export function epochMs(): number {
  return performance.timeOrigin + performance.now();
}

export function median(values: number[]): number {
  if (values.length === 0) return Number.NaN;
  const sorted = [...values].sort((left, right) => left - right);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2;
}

/** A row's value in its unit: milliseconds (`formatMs`) or megabytes. */
export function formatValue(value: number, unit: BenchRow["unit"] = "ms"): string {
  return unit === "MB" ? (Number.isFinite(value) ? `${value.toFixed(1)} MB` : "–") : formatMs(value);
}

/** `12.3 ms` below ten seconds, else `12.3 s`. */
export function formatMs(ms: number): string {
  if (!Number.isFinite(ms)) return "–";
  return ms < 10_000 ? `${ms.toFixed(1)} ms` : `${(ms / 1000).toFixed(1)} s`;
}

/** Medians of named gaps, one `name value` pair each, in the order first seen. */
export function describeMedians(gaps: Map<string, number[]>): string {
  return [...gaps].map(([name, values]) => `${name} ${median(values).toFixed(1)}`).join(", ");
}

/** Appends `value` to the list stored under `key`. */
export function collect(map: Map<string, number[]>, key: string, value: number): void {
  const list = map.get(key);
  if (list) list.push(value);
  else map.set(key, [value]);
}

/** The `p`th percentile (0–100) by the nearest-rank method; NaN for no values. */
export function percentile(values: number[], p: number): number {
  if (values.length === 0) return Number.NaN;
  const sorted = [...values].sort((left, right) => left - right);
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))];
}
