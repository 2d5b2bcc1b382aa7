/**
 * The service's pages over a big store. A store holding `loops × iterations` (100 × 100 = 10,000)
 * iterations, built through the store API (see service-store.ts), served by the real server (createServer
 * with the dashboard mounted, listening on loopback) in a process of its own; autocannon sends from this
 * process with 20 concurrent connections. Measured, in interleaved rounds: the p95 latency of the loops
 * page (`/`), one loop's page (`/loops/:id`, a 100-iteration loop), the events API (a 200-event page of a
 * loop's timeline, `/api/loops/:id/timeline?after=`, the API's paged events read; `/api/events` is a live
 * stream), and the loops list API (`/api/loops`). Baseline: the dashboard's script (`/assets/dashboard.js`,
 * served from memory) on the same server. Target: the loop page's p95 under 10× the static file's.
 * The first request to each page (the server's replay cache is cold) is reported apart, and so is a
 * fresh render of a loop page (a loop's page is kept once rendered until its timeline changes).
 */
import { type ChildProcess, spawn } from "node:child_process";
import { stat } from "node:fs/promises";
import { join } from "node:path";
import { createInterface } from "node:readline";
import { openStore } from "../src/store/open-store.ts";
import { type LoadResult, loadUrl } from "./http-load.ts";
import { buildServiceStore } from "./service-store.ts";
import { type BenchRow, createBenchSandbox, epochMs, median, percentile } from "./support.ts";

const loopCount = 100;
const iterationsPerLoop = 100;
const connections = 20;
const rounds = 3;
const targetRatio = 10;
const serverScript = new URL("./serve-store.ts", import.meta.url).pathname;

export async function benchServicePages(): Promise<BenchRow[]> {
  // Tmpfs: the store's fsync per append is free there, so 120,000 appends take seconds, not minutes.
  const sandbox = await createBenchSandbox({ parent: "/dev/shm" });
  let server: ChildProcess | undefined;
  try {
    const store = await openStore(sandbox.home);
    const buildStart = epochMs();
    const built = await buildServiceStore(store, {
      repoRoot: sandbox.repo,
      baseSha: await sandbox.git("rev-parse", "HEAD"),
      specFolder: sandbox.root,
      loops: loopCount,
      iterations: iterationsPerLoop,
    });
    const buildMs = epochMs() - buildStart;
    const loop = built.loops[Math.floor(loopCount / 2)];
    const loopEvents = await store.readEvents(loop.id);
    const after = loopEvents[Math.floor(loopEvents.length / 2)].id;
    await store.close();
    const databaseBytes = (await stat(join(sandbox.home, "loopwright.db"))).size;

    // A service's environment holds an API key: the answers' redaction then has work to do, as in use.
    // BENCH_NODE_ARGS="--cpu-prof --cpu-prof-dir=/tmp/prof-pages" profiles the server process.
    const nodeArgs = (process.env.BENCH_NODE_ARGS ?? "").split(" ").filter(Boolean);
    server = spawn(process.execPath, [...nodeArgs, serverScript, sandbox.home], {
      env: { ...sandbox.env, BENCH_PROVIDER_API_KEY: "bench-placeholder-value-0123456789" },
      stdio: ["ignore", "pipe", "inherit"],
    });
    const base = await announcedUrl(server);
    // Requests per round and URL: about the same few seconds each on an idle machine.
    const targets: Record<string, { url: string; requests: number }> = {
      static: { url: `${base}/assets/dashboard.js`, requests: 2000 },
      loops: { url: `${base}/`, requests: 60 },
      loop: { url: `${base}/loops/${encodeURIComponent(loop.id)}`, requests: 200 },
      timeline: {
        url: `${base}/api/loops/${encodeURIComponent(loop.id)}/timeline?after=${after}&limit=200`,
        requests: 400,
      },
      list: { url: `${base}/api/loops`, requests: 200 },
    };
    const cold: string[] = [];
    for (const [name, { url }] of Object.entries(targets)) {
      const start = epochMs();
      const answer = await fetch(url);
      const bytes = (await answer.arrayBuffer()).byteLength;
      if (!answer.ok) throw new Error(`GET ${url}: ${answer.status}`);
      cold.push(`${name} ${(epochMs() - start).toFixed(0)} ms (${(bytes / 1024).toFixed(0)} KiB)`);
    }
    // The loop page is kept per timeline change once rendered (src/server/dashboard/page-cache.ts): what a
    // fresh render costs is measured apart, one request at a time to ten loops not asked for yet.
    const fresh: number[] = [];
    const single: number[] = [];
    for (const other of built.loops.filter((item) => item.id !== loop.id).slice(0, 10)) {
      fresh.push(await timedGet(`${base}/loops/${encodeURIComponent(other.id)}`));
      single.push(await timedGet(targets.static.url));
    }
    const results = new Map<string, LoadResult[]>();
    for (let round = 0; round < rounds; round++) {
      for (const [name, { url, requests }] of Object.entries(targets)) {
        const result = await loadUrl(url, { connections, requests });
        results.set(name, [...(results.get(name) ?? []), result]);
      }
    }
    const latencies = (name: string) => (results.get(name) ?? []).flatMap((result) => result.latencies);
    const failures = [...results.values()].flat().reduce((total, result) => total + result.failures, 0);
    if (failures > 0) throw new Error(`${failures} requests failed or answered non-2xx`);
    const staticP95 = percentile(latencies("static"), 95);
    const row = (name: string, label: string, target?: number): BenchRow => {
      const p95 = percentile(latencies(name), 95);
      return {
        name: `${label} p95`,
        median: p95,
        baselineName: "static file p95, same server",
        baselineMedian: staticP95,
        ratio: p95 / staticP95,
        target: target ? `< ${target}× static` : "–",
        met: target ? p95 / staticP95 < target : true,
        samples: latencies(name),
        baselineSamples: latencies("static"),
        details: [],
      };
    };
    const rows = [
      row("loop", "service-pages: loop page", targetRatio),
      row("loops", "service-pages: loops page"),
      row("timeline", "service-pages: events API page"),
      row("list", "service-pages: loops API"),
    ];
    rows[0].details = [
      `${built.loops.length} loops, ${built.loops.length * iterationsPerLoop} iterations, ${built.events} events (${(databaseBytes / 1024 / 1024).toFixed(0)} MiB) built in ${(buildMs / 1000).toFixed(1)} s`,
      `${connections} connections, ${rounds} interleaved rounds per URL (${Object.entries(targets)
        .map(([name, target]) => `${name} ${target.requests}`)
        .join(", ")} requests each); server in its own process`,
      ...Object.keys(targets).map((name) => {
        const all = latencies(name);
        const seconds = (results.get(name) ?? []).reduce((total, result) => total + result.seconds, 0);
        return `${name}: median ${median(all).toFixed(1)} ms, p95 ${percentile(all, 95).toFixed(1)} ms, p99 ${percentile(all, 99).toFixed(1)} ms, ${(all.length / seconds).toFixed(0)} req/s`;
      }),
      `first request, cold replay cache: ${cold.join(", ")}`,
      `loop page rendered fresh (first request to each of 10 other loops, one at a time): median ${median(fresh).toFixed(1)} ms, max ${Math.max(...fresh).toFixed(1)} ms; static file one at a time: median ${median(single).toFixed(1)} ms`,
    ];
    return rows;
  } finally {
    server?.kill("SIGTERM");
    if (server && server.exitCode === null) await new Promise((done) => server?.once("exit", done));
    await sandbox.cleanup();
  }
}

/** Milliseconds to fetch `url` whole (one request); throws on a non-2xx answer. */
async function timedGet(url: string): Promise<number> {
  const start = epochMs();
  const answer = await fetch(url);
  await answer.arrayBuffer();
  if (!answer.ok) throw new Error(`GET ${url}: ${answer.status}`);
  return epochMs() - start;
}

/** The URL the server prints once listening; rejects if it exits first. */
function announcedUrl(child: ChildProcess): Promise<string> {
  return new Promise((resolve, reject) => {
    const lines = createInterface({ input: child.stdout as NodeJS.ReadableStream });
    lines.once("line", (line) => resolve(JSON.parse(line).url));
    child.once("exit", (code) => reject(new Error(`the server exited (${code}) before listening`)));
  });
}
