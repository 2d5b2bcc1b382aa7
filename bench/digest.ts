/**
 * Failure digest: digests a 1 GiB synthetic gate log (passing output of several runners, application
 * noise, and thousands of failures in node:test TAP, jest, vitest, pytest, go test, cargo test, JUnit
 * XML and tsc formats) in a child process, and in the same run times
 * `grep -n -E -A20 -B2 'FAIL|Error|not ok|failed'` over the same file as the baseline. Reports the
 * throughput (target ≥ 200 MB/s, MB = 10^6 bytes), the peak resident memory of the digesting process
 * (target < 100 MB), the rendered digest's size (≤ 64 KiB) and how many failure names it lists. The
 * log is written to a temporary folder and deleted afterwards.
 *
 * `node bench/digest.ts` prints a small table; `benchDigest()` returns rows for `npm run bench`.
 * `LOOPWRIGHT_DIGEST_BENCH_BYTES` overrides the log size (for a quick try).
 */
import { spawn } from "node:child_process";
import {
  closeSync,
  mkdirSync,
  mkdtempSync,
  openSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  writeFileSync,
  writeSync,
} from "node:fs";
import { stripTypeScriptTypes } from "node:module";
import { tmpdir } from "node:os";
import { dirname, join, relative } from "node:path";
import { fileURLToPath } from "node:url";
import type { BenchRow } from "./support.ts";

const logBytes = Number(process.env.LOOPWRIGHT_DIGEST_BENCH_BYTES ?? 1024 ** 3);
const targetMegabytesPerSecond = 200;
const targetMemoryMegabytes = 100;
const digestLimitBytes = 64 * 1024;
const digestSources = fileURLToPath(new URL("../src/gates/digest/", import.meta.url));

/** What the child process that digests the log reports. */
interface DigestRun {
  milliseconds: number;
  /** Resident memory just before the digest started (node itself) and at its peak. */
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
  peakRssBytes: number;
}

/** One run of the benchmark: the same log digested and grepped. */
export interface DigestMeasurement {
  logBytes: number;
  failuresWritten: number;
  digest: DigestRun;
  grep: GrepRun;
}

/** Writes the log, digests it, greps it, deletes it. */
export async function measureDigest(): Promise<DigestMeasurement> {
  const folder = mkdtempSync(join(tmpdir(), "loopwright-digest-bench-"));
  try {
    const path = join(folder, "gate.log");
    const written = writeSyntheticLog(path, logBytes);
    const child = writeDigestChild(folder);
    const digest = await runDigestChild(child, path);
    const grep = await runGrep(path);
    return { logBytes: statSync(path).size, failuresWritten: written.failures, digest, grep };
  } finally {
    rmSync(folder, { recursive: true, force: true });
  }
}

/** The measurement as a row of `npm run bench`. */
export async function benchDigest(): Promise<BenchRow[]> {
  const run = await measureDigest();
  const throughput = megabytesPerSecond(run.logBytes, run.digest.milliseconds);
  const peakMegabytes = run.digest.peakRssBytes / 1e6;
  return [
    {
      name: `digest ${(run.logBytes / 1024 ** 3).toFixed(2)} GiB log`,
      median: run.digest.milliseconds,
      baselineName: "grep -n -E -A20 -B2",
      baselineMedian: run.grep.milliseconds,
      ratio: run.digest.milliseconds / run.grep.milliseconds,
      target: `≥ ${targetMegabytesPerSecond} MB/s, < ${targetMemoryMegabytes} MB`,
      met:
        throughput >= targetMegabytesPerSecond &&
        peakMegabytes < targetMemoryMegabytes &&
        run.digest.digestBytes <= digestLimitBytes,
      samples: [run.digest.milliseconds],
      baselineSamples: [run.grep.milliseconds],
      details: [
        `throughput ${throughput.toFixed(0)} MB/s (grep ${megabytesPerSecond(run.logBytes, run.grep.milliseconds).toFixed(0)} MB/s)`,
        `peak RSS ${peakMegabytes.toFixed(1)} MB, of which node before the digest ${(run.digest.rssBeforeBytes / 1e6).toFixed(1)} MB (grep ${(run.grep.peakRssBytes / 1e6).toFixed(1)} MB)`,
        `digest ${run.digest.digestBytes} bytes, names ${run.digest.listedNames} of ${run.digest.totalFailures} failures (${run.failuresWritten} written)`,
      ],
    },
  ];
}

function megabytesPerSecond(bytes: number, milliseconds: number): number {
  return bytes / 1e6 / (milliseconds / 1000);
}

/**
 * Writes the digest modules as plain JavaScript (types stripped) and a child script that digests a log
 * with them, so that the child's memory is the digest's and node's, as in the built package, and not
 * that of the TypeScript loader.
 */
function writeDigestChild(folder: string): string {
  const modules = join(folder, "digest");
  const warn = process.emitWarning;
  process.emitWarning = () => {}; // stripTypeScriptTypes is marked experimental; say nothing about it.
  try {
    for (const source of listTypeScript(digestSources)) {
      const target = join(modules, relative(digestSources, source)).replace(/\.ts$/, ".mjs");
      mkdirSync(dirname(target), { recursive: true });
      const code = stripTypeScriptTypes(readFileSync(source, "utf8"));
      writeFileSync(target, code.replace(/(from\s+"\.[^"]*)\.ts"/g, '$1.mjs"'));
    }
  } finally {
    process.emitWarning = warn;
  }
  const child = join(folder, "digest-child.mjs");
  writeFileSync(
    child,
    `import { digestLog } from "./digest/digest-log.mjs";
import { renderDigest } from "./digest/render-digest.mjs";
const rssBeforeBytes = process.memoryUsage().rss;
const started = performance.now();
const digest = await digestLog(process.argv[2]);
const rendered = renderDigest(digest, ${digestLimitBytes});
const milliseconds = performance.now() - started;
const lines = rendered.split("\\n");
process.stdout.write(JSON.stringify({
  milliseconds,
  rssBeforeBytes,
  peakRssBytes: process.resourceUsage().maxRSS * 1024,
  digestBytes: Buffer.byteLength(rendered),
  listedNames: lines.filter((line) => /^\\d+\\. /.test(line)).length,
  totalFailures: digest.totalFailures,
  keptFailures: digest.failures.length,
  runners: digest.runners,
  lines: digest.lines,
  leftOut: lines.filter((line) => line.startsWith("(")).join(" "),
}));
`,
  );
  return child;
}

function listTypeScript(folder: string): string[] {
  return readdirSync(folder, { withFileTypes: true }).flatMap((entry) => {
    const path = join(folder, entry.name);
    if (entry.isDirectory()) return listTypeScript(path);
    return entry.name.endsWith(".ts") ? [path] : [];
  });
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
      ["-f", "%M", "grep", "-n", "-E", "-A20", "-B2", "FAIL|Error|not ok|failed", path],
      { stdio: ["ignore", "pipe", "pipe"], env: { ...process.env, LC_ALL: "C" } },
    );
    child.stdout.resume();
    let errors = "";
    child.stderr.on("data", (chunk) => {
      errors += chunk;
    });
    child.on("error", reject);
    child.on("close", () => {
      const kilobytes = Number(errors.trim().split("\n").at(-1));
      resolve({ milliseconds: performance.now() - started, peakRssBytes: kilobytes * 1024 });
    });
  });
}

/**
 * Writes about `bytes` of log: blocks of about 1 MiB, each mostly passing output and noise with a few
 * failures in rotating formats. Returns how many failures it wrote.
 */
function writeSyntheticLog(path: string, bytes: number): { failures: number } {
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
  const digest = run.digest;
  const grep = run.grep;
  const rows: string[][] = [
    ["measure", "digest", "grep", "digest / grep", "target"],
    [
      "time",
      seconds(digest.milliseconds),
      seconds(grep.milliseconds),
      ratio(digest.milliseconds, grep.milliseconds),
      "",
    ],
    [
      "throughput",
      `${megabytesPerSecond(run.logBytes, digest.milliseconds).toFixed(0)} MB/s`,
      `${megabytesPerSecond(run.logBytes, grep.milliseconds).toFixed(0)} MB/s`,
      ratio(
        megabytesPerSecond(run.logBytes, digest.milliseconds),
        megabytesPerSecond(run.logBytes, grep.milliseconds),
      ),
      `≥ ${targetMegabytesPerSecond} MB/s`,
    ],
    [
      "peak RSS",
      `${(digest.peakRssBytes / 1e6).toFixed(1)} MB`,
      `${(grep.peakRssBytes / 1e6).toFixed(1)} MB`,
      ratio(digest.peakRssBytes, grep.peakRssBytes),
      `< ${targetMemoryMegabytes} MB`,
    ],
    ["output", `${digest.digestBytes} B`, "(all matches)", "", `≤ ${digestLimitBytes} B`],
  ];
  const widths = rows[0].map((_, column) => Math.max(...rows.map((row) => row[column].length)));
  const table = rows.map((row) =>
    row
      .map((cell, column) => (column === 0 ? cell.padEnd(widths[column]) : cell.padStart(widths[column])))
      .join("  "),
  );
  return `${[
    `node ${process.version}; ${(run.logBytes / 1024 ** 3).toFixed(2)} GiB synthetic log, ${digest.lines} lines, ${run.failuresWritten} failures written; one run each`,
    "",
    ...table,
    "",
    `node's own RSS before the digest started: ${(digest.rssBeforeBytes / 1e6).toFixed(1)} MB`,
    `failures recognized: ${digest.totalFailures} (${digest.runners.join(", ")}); names listed in the digest: ${digest.listedNames}`,
    `the digest says: ${digest.leftOut}`,
  ].join("\n")}\n`;
}

function seconds(milliseconds: number): string {
  return `${(milliseconds / 1000).toFixed(2)} s`;
}

function ratio(value: number, baseline: number): string {
  return `${(value / baseline).toFixed(2)}×`;
}

if (import.meta.main) {
  const run = await measureDigest();
  process.stdout.write(renderTable(run));
  const met =
    megabytesPerSecond(run.logBytes, run.digest.milliseconds) >= targetMegabytesPerSecond &&
    run.digest.peakRssBytes / 1e6 < targetMemoryMegabytes &&
    run.digest.digestBytes <= digestLimitBytes;
  process.exitCode = met ? 0 : 1;
}
