/**
 * `npm run bench`: runs every benchmark (or those named: `node bench/run.ts overhead startup`) and prints
 * one table: each benchmark's median, the median of its baseline measured in the same run, their ratio,
 * the target and whether it is met. `--json` prints the rows (with every sample) as JSON instead. The
 * machine is assumed shared and noisy: read the ratios first, and the load averages printed with them.
 * A missed target is reported in the table, not by the exit code (it depends on the machine's load).
 */
import { availableParallelism, loadavg } from "node:os";
import { benchAgent } from "./agent.ts";
import { benchControllerOverhead } from "./controller-overhead.ts";
import { benchDigest } from "./digest.ts";
import { benchHooks } from "./hooks.ts";
import { benchParallelGates } from "./parallel-gates.ts";
import { benchServicePages } from "./service-pages.ts";
import { benchServiceThroughput } from "./service-throughput.ts";
import { benchSseFanout } from "./sse-fanout.ts";
import { benchStartup } from "./startup.ts";
import { benchStreakRerun } from "./streak-rerun.ts";
import { type BenchRow, formatValue } from "./support.ts";

const benchmarks: Record<string, () => Promise<BenchRow[]>> = {
  overhead: benchControllerOverhead,
  parallel: benchParallelGates,
  startup: benchStartup,
  digest: benchDigest,
  agent: benchAgent,
  hooks: benchHooks,
  streak: benchStreakRerun,
  "service-pages": benchServicePages,
  "service-throughput": benchServiceThroughput,
  "sse-fanout": benchSseFanout,
};

async function main(argv: string[]): Promise<number> {
  const json = argv.includes("--json");
  const names = argv.filter((argument) => !argument.startsWith("--"));
  const unknown = names.filter((name) => !(name in benchmarks));
  if (unknown.length > 0) {
    process.stderr.write(
      `unknown benchmark ${unknown.join(", ")}; known: ${Object.keys(benchmarks).join(", ")}\n`,
    );
    return 2;
  }
  const selected = names.length > 0 ? names : Object.keys(benchmarks);
  const loadBefore = loadavg()[0];
  const rows: BenchRow[] = [];
  for (const name of selected) {
    if (!json) process.stderr.write(`running ${name}…\n`);
    rows.push(...(await benchmarks[name]()));
  }
  if (json) process.stdout.write(`${JSON.stringify(rows, null, 2)}\n`);
  else process.stdout.write(renderTable(rows, loadBefore));
  return 0;
}

function renderTable(rows: BenchRow[], loadBefore: number): string {
  const header = ["benchmark", "median", "baseline", "baseline median", "ratio", "target", "met"];
  const cells = rows.map((row) => [
    row.name,
    formatValue(row.median, row.unit),
    row.baselineName,
    formatValue(row.baselineMedian, row.unit),
    `${row.ratio.toFixed(2)}×`,
    row.target,
    row.target === "–" ? "–" : row.met ? "yes" : "NO",
  ]);
  const widths = header.map((title, column) =>
    Math.max(title.length, ...cells.map((line) => line[column].length)),
  );
  const line = (values: string[]) =>
    values
      .map((value, column) =>
        column === 0 || column === 2 ? value.padEnd(widths[column]) : value.padStart(widths[column]),
      )
      .join("  ")
      .trimEnd();
  const out = [
    `node ${process.version}, ${availableParallelism()} cpus, 1-minute load ${loadBefore.toFixed(2)} before, ${loadavg()[0].toFixed(2)} after; times are medians (p95 where the name says so)`,
    "",
    line(header),
    ...cells.map(line),
    "",
  ];
  for (const row of rows.filter((candidate) => candidate.details.length > 0)) {
    out.push(`${row.name}:`, ...row.details.map((detail) => `  ${detail}`));
  }
  return `${out.join("\n")}\n`;
}

process.exitCode = await main(process.argv.slice(2));
