/**
 * Failure digest: digests a 1 GiB synthetic gate log (passing output of several runners, application
 * noise, and thousands of failures in node:test TAP, jest, vitest, pytest, go test, cargo test, JUnit
 * XML and tsc formats) in a child process, and in the same run times
 * `grep -n -E -A20 -B2 'FAIL|Error|not ok|failed'` over the same file as the baseline. Each round runs
 * grep, the digest from the build users install (dist/, `npm run build`) and the digest from the
 * TypeScript sources (node's type stripping, as in development); the figures are medians of the rounds.
 * Each run's CPU time (user and system) is reported beside its wall time: a loaded machine disturbs it
 * less, so grep's CPU time over the digest's is the steadier ratio when other work shares the cores.
 * Targets: the build's throughput at least 0.7× grep's, the peak resident memory of the digesting
 * process under 100 MB, the rendered digest at most 64 KiB. The log is written to /dev/shm when it
 * has room (so that the disk is not what is measured), else to the temporary folder, and deleted
 * afterwards.
 *
 * `node bench/digest.ts` prints a table; `benchDigest()` returns rows for `npm run bench`.
 * `LOOPWRIGHT_DIGEST_BENCH_BYTES` overrides the log size (for a quick try),
 * `LOOPWRIGHT_DIGEST_BENCH_ROUNDS` the number of rounds (default 3).
 */
import { spawn } from "node:child_process";
import {
  closeSync,
  mkdtempSync,
  openSync,
  rmSync,
  statfsSync,
  statSync,
  writeFileSync,
  writeSync,
} from "node:fs";
import { loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import type { BenchRow } from "./support.ts";
import * as support from "./support.ts";

const logBytes = Number(process.env.LOOPWRIGHT_DIGEST_BENCH_BYTES ?? 1024 ** 3);
const rounds = Math.max(1, Number(process.env.LOOPWRIGHT_DIGEST_BENCH_ROUNDS ?? 3));
const targetRatio = 0.7;
const targetMemoryMegabytes = 100;
const digestLimitBytes = 64 * 1024;
const packageRoot = fileURLToPath(new URL("../", import.meta.url));
const builtDigest = join(packageRoot, "dist", "gates", "digest");
const sourceDigest = join(packageRoot, "src", "gates", "digest");

/** What the child process that digests the log reports. */
interface DigestRun {
  milliseconds: number;
  /** CPU time (user and system, all threads) the digest took: less sensitive to a loaded machine. */
  cpuMilliseconds: number;
  /** Resident memory just before the digest started (node and the loaded modules) and at its peak. */
  rssBeforeBytes: number;
  peakRssBytes: number;
  digestBytes: number;
  listedNames: number;
  totalFailures: number;
  keptFailures: number;
  runners: string[];
  lines: number;
  /** The last line of the rendered digest that says what it left out. */
  leftOut: string;
}

interface GrepRun {
  milliseconds: number;
  cpuMilliseconds: number;
  peakRssBytes: number;
}

/** The same log digested (from the build and from the sources) and grepped, `rounds` times. */
export interface DigestMeasurement {
  logBytes: number;
  logFolder: string;
  failuresWritten: number;
  build: DigestRun[];
  source: DigestRun[];
  grep: GrepRun[];
  /** The 1-minute load average before and after the rounds. */
  load: [number, number];
}

/** Writes the log, then digests and greps it `rounds` times, then deletes it. */
export async function measureDigest(): Promise<DigestMeasurement> {
  await support.buildOnce();
  const parent = logParent(logBytes);
  const folder = mkdtempSync(join(parent, "loopwright-digest-bench-"));
  try {
    const path = join(folder, "gate.log");
    const written = writeSyntheticLog(path, logBytes);
    const buildChild = writeDigestChild(folder, "build", join(builtDigest, "digest-log.js"));
    const sourceChild = writeDigestChild(folder, "source", join(sourceDigest, "digest-log.ts"));
    const measurement: DigestMeasurement = {
      logBytes: statSync(path).size,
      logFolder: parent,
      failuresWritten: written.failures,
      build: [],
      source: [],
      grep: [],
      load: [loadavg()[0], 0],
    };
    for (let round = 0; round < rounds; round++) {
      measurement.grep.push(await runGrep(path));
      measurement.build.push(await runDigestChild(buildChild, path));
      measurement.source.push(await runDigestChild(sourceChild, path));
    }
    measurement.load[1] = loadavg()[0];
    const [first, ...others] = [...measurement.build, ...measurement.source];
    for (const run of others) {
      if (run.digestBytes !== first.digestBytes || run.totalFailures !== first.totalFailures) {
        throw new Error("the build and the sources digested the log differently");
      }
    }
    return measurement;
  } finally {
    rmSync(folder, { recursive: true, force: true });
  }
}

/** The medians of a measurement, as the table and the bench row show them. */
interface DigestFigures {
  buildMilliseconds: number;
  sourceMilliseconds: number;
  grepMilliseconds: number;
  /** Throughputs in MB/s (MB = 10^6 bytes). */
  build: number;
  source: number;
  grep: number;
  /** The build's throughput over grep's. */
  ratio: number;
  sourceRatio: number;
  peakMegabytes: number;
  sourcePeakMegabytes: number;
  /** Medians of CPU time, and grep's CPU time over the build's (throughput per CPU second). */
  buildCpu: number;
  sourceCpu: number;
  grepCpu: number;
  cpuRatio: number;
  met: boolean;
}

function figures(run: DigestMeasurement): DigestFigures {
  const buildMilliseconds = support.median(run.build.map((digest) => digest.milliseconds));
  const sourceMilliseconds = support.median(run.source.map((digest) => digest.milliseconds));
  const grepMilliseconds = support.median(run.grep.map((grep) => grep.milliseconds));
  const build = megabytesPerSecond(run.logBytes, buildMilliseconds);
  const source = megabytesPerSecond(run.logBytes, sourceMilliseconds);
  const grep = megabytesPerSecond(run.logBytes, grepMilliseconds);
  const peakMegabytes = support.median(run.build.map((digest) => digest.peakRssBytes)) / 1e6;
  const buildCpu = support.median(run.build.map((digest) => digest.cpuMilliseconds));
  const grepCpu = support.median(run.grep.map((grep) => grep.cpuMilliseconds));
  return {
    buildCpu,
    sourceCpu: support.median(run.source.map((digest) => digest.cpuMilliseconds)),
    grepCpu,
    cpuRatio: grepCpu / buildCpu,
    buildMilliseconds,
    sourceMilliseconds,
    grepMilliseconds,
    build,
    source,
    grep,
    ratio: build / grep,
    sourceRatio: source / grep,
    peakMegabytes,
    sourcePeakMegabytes: support.median(run.source.map((digest) => digest.peakRssBytes)) / 1e6,
    met:
      build / grep >= targetRatio &&
      peakMegabytes < targetMemoryMegabytes &&
      run.build[0].digestBytes <= digestLimitBytes,
  };
}

/** The measurement as a row of `npm run bench`. */
export async function benchDigest(): Promise<BenchRow[]> {
  const run = await measureDigest();
  const result = figures(run);
  const digest = run.build[0];
  return [
    {
      name: `digest ${(run.logBytes / 1024 ** 3).toFixed(2)} GiB log (build)`,
      median: result.buildMilliseconds,
      baselineName: "grep -n -E -A20 -B2",
      baselineMedian: result.grepMilliseconds,
      ratio: result.buildMilliseconds / result.grepMilliseconds,
      target: `≥ ${targetRatio}× grep's MB/s, < ${targetMemoryMegabytes} MB`,
      met: result.met,
      samples: run.build.map((build) => build.milliseconds),
      baselineSamples: run.grep.map((grep) => grep.milliseconds),
      details: [
        `throughput: build ${result.build.toFixed(0)} MB/s (${result.ratio.toFixed(2)}× grep), source ${result.source.toFixed(0)} MB/s (${result.sourceRatio.toFixed(2)}× grep), grep ${result.grep.toFixed(0)} MB/s`,
        `CPU time: build ${seconds(result.buildCpu)}, source ${seconds(result.sourceCpu)}, grep ${seconds(result.grepCpu)} (grep / build ${result.cpuRatio.toFixed(2)}×)`,
        `peak RSS ${result.peakMegabytes.toFixed(1)} MB (source ${result.sourcePeakMegabytes.toFixed(1)} MB), of which node and the modules before the digest ${(digest.rssBeforeBytes / 1e6).toFixed(1)} MB (grep ${(support.median(run.grep.map((grep) => grep.peakRssBytes)) / 1e6).toFixed(1)} MB)`,
        `digest ${digest.digestBytes} bytes, names ${digest.listedNames} of ${digest.totalFailures} failures (${run.failuresWritten} written); log in ${run.logFolder}; load ${run.load[0].toFixed(1)} → ${run.load[1].toFixed(1)}`,
      ],
    },
  ];
}

function megabytesPerSecond(bytes: number, milliseconds: number): number {
  return bytes / 1e6 / (milliseconds / 1000);
}

/** /dev/shm when it is a folder with room for the log and a margin, else the temporary folder. */
function logParent(bytes: number): string {
  try {
    const space = statfsSync("/dev/shm");
    if (space.bavail * space.bsize > bytes * 1.5 + 256 * 1024 ** 2) return "/dev/shm";
  } catch {
    // No /dev/shm here.
  }
  return tmpdir();
}

/** A child script that digests the log at argv[2] with the digest module at `module` and reports. */
function writeDigestChild(folder: string, name: string, module: string): string {
  const child = join(folder, `digest-${name}.mjs`);
  const renderModule = module.replace(/digest-log\.(js|ts)$/, "render-digest.$1");
  writeFileSync(
    child,
    `const { readFileSync } = await import("node:fs");
const { digestLog } = await import(${JSON.stringify(pathToFileURL(module).href)});
const { renderDigest } = await import(${JSON.stringify(pathToFileURL(renderModule).href)});
const rssBeforeBytes = process.memoryUsage().rss;
const started = performance.now();
const cpuStarted = process.cpuUsage();
const digest = await digestLog(process.argv[2]);
const rendered = renderDigest(digest, ${digestLimitBytes});
const milliseconds = performance.now() - started;
const cpu = process.cpuUsage(cpuStarted);
const lines = rendered.split("\\n");
process.stdout.write(JSON.stringify({
  milliseconds,
  cpuMilliseconds: (cpu.user + cpu.system) / 1000,
  rssBeforeBytes,
  peakRssBytes: peakRssBytes(),
  digestBytes: Buffer.byteLength(rendered),
  listedNames: lines.filter((line) => /^\\d+\\. /.test(line)).length,
  totalFailures: digest.totalFailures,
  keptFailures: digest.failures.length,
  runners: digest.runners,
  lines: digest.lines,
  leftOut: lines.filter((line) => line.startsWith("(")).join(" "),
}));

// This process's own peak (VmHWM). Not getrusage's maxRSS: on Linux that keeps the parent's resident
// size at the fork before exec, so it would report the benchmark's memory, not the digest's.
function peakRssBytes() {
  try {
    const peak = /VmHWM:\\s+(\\d+) kB/.exec(readFileSync("/proc/self/status", "utf8"));
    if (peak) return Number(peak[1]) * 1024;
  } catch {
    // Not Linux.
  }
  return process.resourceUsage().maxRSS * 1024;
}
`,
  );
  return child;
}

/** Runs the child on `path` in a fresh process, so that its peak memory is the digest's alone. */
function runDigestChild(child: string, path: string): Promise<DigestRun> {
  return new Promise((resolve, reject) => {
    const process_ = spawn(process.execPath, [child, path], { stdio: ["ignore", "pipe", "inherit"] });
    let output = "";
    process_.stdout.on("data", (chunk) => {
      output += chunk;
    });
    process_.on("error", reject);
    process_.on("close", (code) => {
      if (code !== 0) reject(new Error(`digest child exited ${code}: ${output}`));
      else resolve(JSON.parse(output) as DigestRun);
    });
  });
}

/**
 * Times grep under `/usr/bin/time`, which reports its peak memory. Its output is drained through a
 * pipe and dropped: GNU grep stops at the first match when its output is /dev/null itself.
 */
function runGrep(path: string): Promise<GrepRun> {
  return new Promise((resolve, reject) => {
    const started = performance.now();
    const child = spawn(
      "/usr/bin/time",
      ["-f", "%M %U %S", "grep", "-n", "-E", "-A20", "-B2", "FAIL|Error|not ok|failed", path],
      { stdio: ["ignore", "pipe", "pipe"], env: { ...process.env, LC_ALL: "C" } },
    );
    child.stdout.resume();
    let errors = "";
    child.stderr.on("data", (chunk) => {
      errors += chunk;
    });
    child.on("error", reject);
    child.on("close", () => {
      const [kilobytes, user, system] = (errors.trim().split("\n").at(-1) ?? "").split(" ").map(Number);
      resolve({
        milliseconds: performance.now() - started,
        cpuMilliseconds: (user + system) * 1000,
        peakRssBytes: kilobytes * 1024,
      });
    });
  });
}

/**
 * Writes about `bytes` of log: blocks of about 1 MiB, each mostly passing output and noise with a few
 * failures in rotating formats. Returns how many failures it wrote.
 */
export function writeSyntheticLog(path: string, bytes: number): { failures: number } {
  const descriptor = openSync(path, "w");
  let written = 0;
  let failures = 0;
  try {
    for (let block = 0; written < bytes; block++) {
      const { text, failureCount } = syntheticBlock(block);
      written += writeSync(descriptor, text);
      failures += failureCount;
    }
  } finally {
    closeSync(descriptor);
  }
  return { failures };
}

const failureWriters: ((id: number) => string)[] = [
  (id) =>
    `# Subtest: suite ${id}\n    # Subtest: handles case ${id}\n    not ok 1 - handles case ${id}\n      ---\n      duration_ms: 1.5\n      type: 'test'\n      location: '/work/test/case-${id}.test.mjs:12:3'\n      failureType: 'testCodeFailure'\n      error: |-\n        Expected values to be strictly equal:\n        \n        ${id} !== ${id + 1}\n        \n      code: 'ERR_ASSERTION'\n      stack: |-\n        TestContext.<anonymous> (file:///work/test/case-${id}.test.mjs:13:12)\n        Test.runInAsyncScope (node:async_hooks:227:14)\n      ...\n    1..1\nnot ok ${id} - suite ${id}\n  ---\n  failureType: 'subtestsFailed'\n  error: '1 subtest failed'\n  ...\n`,
  (id) =>
    `FAIL src/module-${id}.test.js\n  ● module ${id} › computes the total\n\n    expect(received).toBe(expected) // Object.is equality\n\n    Expected: ${id}\n    Received: ${id + 1}\n\n      10 |   it("computes the total", () => {\n    > 11 |     expect(total()).toBe(${id});\n         |                     ^\n\n      at Object.toBe (src/module-${id}.test.js:11:21)\n\n`,
  (id) =>
    ` FAIL  src/widget-${id}.test.ts > widget ${id} > renders\nAssertionError: expected 'a' to be 'b' // Object.is equality\n\n- Expected\n+ Received\n\n- b\n+ a\n\n ❯ src/widget-${id}.test.ts:20:17\n\n⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯[1/1]⎯\n\n`,
  (id) =>
    `=================================== FAILURES ===================================\n___________________________ test_parse_${id} ___________________________\n\n    def test_parse_${id}():\n>       assert parse("${id}") == ${id + 1}\nE       assert ${id} == ${id + 1}\n\ntests/test_parse.py:${(id % 900) + 10}: AssertionError\n=========================== short test summary info ============================\nFAILED tests/test_parse.py::test_parse_${id} - assert ${id} == ${id + 1}\n`,
  (id) =>
    `=== RUN   TestHandler${id}\n    handler_test.go:${(id % 500) + 5}: got status 500, want 200\n--- FAIL: TestHandler${id} (0.01s)\nFAIL\texample.com/app/handlers\t0.120s\n`,
  (id) =>
    `test api::handles_${id} ... FAILED\n\nfailures:\n\n---- api::handles_${id} stdout ----\n\nthread 'api::handles_${id}' (4242) panicked at src/api.rs:${(id % 700) + 3}:9:\nassertion \`left == right\` failed\n  left: ${id}\n right: ${id + 1}\n\n\nfailures:\n    api::handles_${id}\n\ntest result: FAILED. 41 passed; 1 failed; 0 ignored; 0 measured; 0 filtered out; finished in 0.02s\n`,
  (id) =>
    `<testsuite name="service ${id}" tests="2" failures="1">\n<testcase name="responds ${id}" classname="service.${id}" file="src/service.test.ts" line="${id % 300 || 1}">\n<failure message="expected true to be false" type="AssertionError">AssertionError: expected true to be false\n    at Context.&lt;anonymous&gt; (src/service.test.ts:${(id % 300) + 2}:10)\n</failure>\n</testcase>\n<testcase name="passes ${id}" classname="service.${id}"/>\n</testsuite>\n`,
  (id) =>
    `src/generated/model-${id}.ts(${(id % 400) + 1},5): error TS2322: Type 'string' is not assignable to type 'number'.\n`,
];

const noise = [
  (n: number) =>
    `[2024-05-01T12:00:${String(n % 60).padStart(2, "0")}Z] INFO request ${n} served in ${n % 97} ms`,
  (n: number) => `    ✓ renders item ${n} with the default props (${n % 13} ms)`,
  (n: number) => `tests/test_module_${n % 40}.py ........................................ [ ${n % 100}%]`,
  (n: number) => `test storage::roundtrip_${n} ... ok`,
  (n: number) => ` ✓ src/components/card-${n % 300}.test.tsx (12 tests) ${n % 50}ms`,
  (n: number) => `      ✔ parses record ${n}`,
  (n: number) => `DEBUG cache lookup key=user:${n} hit=true ttl=3600`,
  (n: number) =>
    `# Subtest: formats value ${n}\nok ${n % 1000} - formats value ${n}\n  ---\n  duration_ms: 0.${n % 10}\n  ...`,
  (n: number) => `=== RUN   TestParse${n}\n--- PASS: TestParse${n} (0.00s)`,
  (n: number) => `<testcase name="works ${n}" classname="unit.suite" time="0.001"/>`,
  (n: number) => `  console.log: processing batch ${n} of 4096, ${n % 512} records`,
  (n: number) => `WARN retry ${n % 5} for job ${n}: upstream returned Error 503, backing off`,
];

/** About 1 MiB of log: noise lines with four failures spread through it. */
function syntheticBlock(block: number): { text: string; failureCount: number } {
  const parts: string[] = [];
  let length = 0;
  let line = block * 20_000;
  const failureCount = 4;
  let failure = 0;
  while (length < 1024 * 1024) {
    // Noise lines mostly; the rarer kinds (warnings with "Error") only now and then.
    const kind = line % 97 === 0 ? noise.length - 1 : line % (noise.length - 1);
    const text = noise[kind](line);
    parts.push(text);
    length += text.length + 1;
    line++;
    if (failure < failureCount && length > ((failure + 1) * 1024 * 1024) / (failureCount + 1)) {
      const id = block * failureCount + failure;
      const text = failureWriters[id % failureWriters.length](id).trimEnd();
      parts.push(text);
      length += text.length + 1;
      failure++;
    }
  }
  return { text: `${parts.join("\n")}\n`, failureCount };
}

function renderTable(run: DigestMeasurement): string {
  const result = figures(run);
  const digest = run.build[0];
  const grepPeak = support.median(run.grep.map((grep) => grep.peakRssBytes)) / 1e6;
  const rows: string[][] = [
    ["measure", "build", "source", "grep", "build / grep", "target"],
    [
      "time",
      seconds(result.buildMilliseconds),
      seconds(result.sourceMilliseconds),
      seconds(result.grepMilliseconds),
      `${(result.buildMilliseconds / result.grepMilliseconds).toFixed(2)}×`,
      "",
    ],
    [
      "throughput",
      `${result.build.toFixed(0)} MB/s`,
      `${result.source.toFixed(0)} MB/s`,
      `${result.grep.toFixed(0)} MB/s`,
      `${result.ratio.toFixed(2)}×`,
      `≥ ${targetRatio}×`,
    ],
    [
      "peak RSS",
      `${result.peakMegabytes.toFixed(1)} MB`,
      `${result.sourcePeakMegabytes.toFixed(1)} MB`,
      `${grepPeak.toFixed(1)} MB`,
      "",
      `< ${targetMemoryMegabytes} MB`,
    ],
    [
      "CPU time",
      seconds(result.buildCpu),
      seconds(result.sourceCpu),
      seconds(result.grepCpu),
      `${result.cpuRatio.toFixed(2)}×`,
      "(grep / build)",
    ],
    [
      "output",
      `${digest.digestBytes} B`,
      `${run.source[0].digestBytes} B`,
      "(all matches)",
      "",
      `≤ ${digestLimitBytes} B`,
    ],
  ];
  const widths = rows[0].map((_, column) => Math.max(...rows.map((row) => row[column].length)));
  const table = rows.map((row) =>
    row
      .map((cell, column) => (column === 0 ? cell.padEnd(widths[column]) : cell.padStart(widths[column])))
      .join("  "),
  );
  const samples = (runs: { milliseconds: number }[]) =>
    runs.map((sample) => (sample.milliseconds / 1000).toFixed(2)).join(", ");
  return `${[
    `node ${process.version}; ${(run.logBytes / 1024 ** 3).toFixed(2)} GiB synthetic log in ${run.logFolder}, ${digest.lines} lines, ${run.failuresWritten} failures written; medians of ${rounds} rounds; load ${run.load[0].toFixed(1)} → ${run.load[1].toFixed(1)}`,
    "",
    ...table,
    "",
    `seconds per round: build ${samples(run.build)}; source ${samples(run.source)}; grep ${samples(run.grep)}`,
    `RSS before the digest started (node and the modules): build ${(digest.rssBeforeBytes / 1e6).toFixed(1)} MB, source ${(run.source[0].rssBeforeBytes / 1e6).toFixed(1)} MB`,
    `failures recognized: ${digest.totalFailures} (${digest.runners.join(", ")}); names listed in the digest: ${digest.listedNames}`,
    `the digest says: ${digest.leftOut}`,
  ].join("\n")}\n`;
}

function seconds(milliseconds: number): string {
  return `${(milliseconds / 1000).toFixed(2)} s`;
}

if (import.meta.main) {
  const run = await measureDigest();
  process.stdout.write(renderTable(run));
  process.exitCode = figures(run).met ? 0 : 1;
}
