/** The service under a burst: see `benchServiceThroughput`. */
import { readdirSync, readFileSync } from "node:fs";
import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { setTimeout as delay } from "node:timers/promises";
import type { AppContext } from "../src/app/app-context.ts";
import { submitLoop } from "../src/app/submit-loop.ts";
import { openStore } from "../src/store/open-store.ts";
import type { Store, StoredEvent } from "../src/store/store.ts";
import {
  type BenchRow,
  type BenchSandbox,
  collect,
  createBenchSandbox,
  describeMedians,
  median,
  percentile,
} from "./support.ts";

const burst = 50;
const aloneRuns = 3;
const targetMs = 2000;
const timeoutMs = 300_000;
const memoryTargetKib = 4 * 1024 * 1024;

/**
 * The service under a burst: a real `loopwright serve --max-active 50` (the CLI, its own process) and 50
 * loops with instant scripted engines (the maker writes one file, one gate checks it, the scripted
 * verifier approves), in two scenarios on the same service, from the timelines:
 * - true burst: 50 loops submitted (`submitLoop`, the function behind `run --detach`) before the service
 *   starts, so they all wait at once; the delay to each loop's first maker command (`maker_started`) is
 *   measured from the service's spawn (what a user waits) and from `loop_queued`;
 * - back to back: 50 loops submitted one after the other to the running service, from this process,
 *   which competes with the controllers for the CPU (how long submitting took is printed: a slow
 *   submission spreads the burst and flatters the delay).
 * Baseline, in the same run and on the same service: the delay from `loop_queued` to `maker_started` of
 * one loop submitted alone (three times, between the two scenarios). Every loop must verify; no event
 * lost: each loop's seq runs 1..n without a gap, global ids rise with seq, every loop has the same event
 * types as a lone loop, and the global feed (`readEventsAfter`) holds exactly the loops' events.
 */
export async function benchServiceThroughput(): Promise<BenchRow[]> {
  const sandbox = await createBenchSandbox();
  const store = await openStore(sandbox.home);
  const context: AppContext = { store, home: sandbox.home };
  const names = (prefix: string) =>
    Array.from({ length: burst }, (_, index) => `${prefix}-${String(index + 1).padStart(2, "0")}`);
  // Queued before any service runs: the true burst.
  const queuedIds = await submit(context, sandbox, names("queued"));
  // BENCH_IDLE_CONTROLLERS=N, BENCH_LOOPS_PER_CONTROLLER=N: the service's --idle-controllers and
  // --loops-per-controller (default: serve's own).
  const idle = process.env.BENCH_IDLE_CONTROLLERS;
  const perController = process.env.BENCH_LOOPS_PER_CONTROLLER;
  const availableBeforeKib = memAvailableKib();
  const serveStart = Date.now();
  const service = sandbox.spawnCli([
    "serve",
    "--port",
    "0",
    "--max-active",
    String(burst),
    ...(idle ? ["--idle-controllers", idle] : []),
    ...(perController ? ["--loops-per-controller", perController] : []),
  ]);
  let serviceLog = "";
  service.stdout?.on("data", (chunk) => {
    serviceLog += chunk;
  });
  service.stderr?.on("data", (chunk) => {
    serviceLog += chunk;
  });
  try {
    await waitForService(sandbox, service.pid as number, () => serviceLog);
    const serviceUpMs = Date.now() - serveStart;
    const queuedSampler = sampleControllers(sandbox.home, availableBeforeKib);
    await waitForStopped(store, queuedIds, () => serviceLog);
    const queuedSampled = await queuedSampler.stop();

    const alone: number[] = [];
    for (let run = 1; run <= aloneRuns; run++) {
      const [id] = await submit(context, sandbox, [`alone-${run}`]);
      await waitForStopped(store, [id], () => serviceLog);
      alone.push(...delays(await store.readEvents(id)));
    }
    const reference = typesOf(await store.readEvents((await store.findLoop("alone-1"))?.id ?? ""));

    const sampler = sampleControllers(sandbox.home, availableBeforeKib);
    const submitStart = Date.now();
    // BENCH_SUBMIT_EVERY_MS=N: one submission every N ms at most (the same arrivals whatever the service's
    // CPU use leaves this process; default: as fast as it can).
    const ids = await submit(
      context,
      sandbox,
      names("burst"),
      Number(process.env.BENCH_SUBMIT_EVERY_MS) || 0,
    );
    const submitMs = Date.now() - submitStart;
    await waitForStopped(store, ids, () => serviceLog);
    const sampled = await sampler.stop();
    const servicePeakKib = peakRssOfProcess(service.pid as number);

    const feed = await readAll(store);
    const queued = await readTimelines(store, queuedIds, reference, feed);
    const timelines = await readTimelines(store, ids, reference, feed);

    const fromServe = [...queued.values()].map((events) => firstAt(events, "maker_started") - serveStart);
    const startedFromServe = [...queued.values()].map(
      (events) => firstAt(events, "run_started") - serveStart,
    );
    const fromQueued = [...queued.values()].flatMap(delays);
    const queuedProcesses = await controllerProcesses(sandbox.home, queuedIds);
    const all = [...timelines.values()].flat();
    const first = Math.min(...all.map((event) => Date.parse(event.at)));
    const last = Math.max(...all.map((event) => Date.parse(event.at)));
    const eventsPerSecond = all.length / ((last - first) / 1000);
    const burstDelays = [...timelines.values()].flatMap(delays);
    const pickups = [...timelines.values()].map((events) => gap(events, "loop_queued", "run_started"));
    const preparing = [...timelines.values()].map((events) => gap(events, "run_started", "maker_started"));
    const p95 = percentile(burstDelays, 95);
    const p95Serve = percentile(fromServe, 95);
    const burstProcesses = await controllerProcesses(sandbox.home, ids);
    const controllerPeaks = burstProcesses.map((controller) => controller.peakRssKib);
    const memoryKib = controllerPeaks.reduce((total, peak) => total + peak, 0);
    const mib = (kib: number) => `${(kib / 1024).toFixed(0)} MiB`;
    const steps = new Map<string, number[]>();
    const queuedSteps = new Map<string, number[]>();
    const aloneSteps = new Map<string, number[]>();
    for (const events of timelines.values()) stepGaps(events, steps);
    for (const events of queued.values()) stepGaps(events, queuedSteps);
    stepGaps(await store.readEvents((await store.findLoop("alone-1"))?.id ?? ""), aloneSteps);
    const baseline = median(alone);
    const queuedCpu = queuedProcesses.map((controller) => controller.cpuMs);
    return [
      {
        name: "service-throughput: true burst, serve start → maker p95",
        median: p95Serve,
        baselineName: "one loop alone, median",
        baselineMedian: baseline,
        ratio: p95Serve / baseline,
        target: `< ${targetMs} ms`,
        met: p95Serve < targetMs,
        samples: fromServe,
        baselineSamples: alone,
        details: [
          `${burst} loops queued before \`serve\` started, all verified; the service announced itself ${serviceUpMs} ms after its spawn; from its spawn to maker_started: median ${median(fromServe).toFixed(0)} ms, p95 ${p95Serve.toFixed(0)}, max ${Math.max(...fromServe).toFixed(0)}; to run_started (runs start one after the other, in launch order): first ${Math.min(...startedFromServe).toFixed(0)} ms, median ${median(startedFromServe).toFixed(0)}, last ${Math.max(...startedFromServe).toFixed(0)}`,
          `from loop_queued (includes the wait before serve started): median ${median(fromQueued).toFixed(0)} ms, p95 ${percentile(fromQueued, 95).toFixed(0)} ms`,
          `gap before each event up to the maker (median ms): ${describeMedians(queuedSteps)}`,
          `controller CPU (user+system, from the controller.logs): ${queuedProcesses.length} controller processes ran the ${burst} loops; per process median ${median(queuedCpu).toFixed(0)} ms, sum ${(queuedCpu.reduce((a, b) => a + b, 0) / 1000).toFixed(1)} s; their peak RSS sum ${mib(queuedProcesses.reduce((total, controller) => total + controller.peakRssKib, 0))}`,
          `most runs going at once: ${mostAtOnce([...queued.values()])}; sampled every ${sampleEveryMs} ms: at most ${queuedSampled.most} controllers alive, PSS sum at most ${mib(queuedSampled.pssKib)}, RSS sum at most ${mib(queuedSampled.rssKib)}, private (USS) sum at most ${mib(queuedSampled.ussKib)}; the system's available memory dropped by at most ${mib(queuedSampled.availableDropKib)} (MemAvailable, against before serve started: the service, git, the engines and any other process on the machine included)`,
        ],
      },
      {
        name: "service-throughput: back to back, submit → maker p95",
        median: p95,
        baselineName: "one loop alone, median",
        baselineMedian: baseline,
        ratio: p95 / baseline,
        target: `< ${targetMs} ms`,
        met: p95 < targetMs,
        samples: burstDelays,
        baselineSamples: alone,
        details: [
          `${burst} loops, all verified, submitted back to back in ${submitMs} ms (this process competes with the controllers: a slow submission spreads the burst); median delay ${median(burstDelays).toFixed(0)} ms, max ${Math.max(...burstDelays).toFixed(0)} ms; alone: ${alone.map((value) => value.toFixed(0)).join(", ")} ms`,
          `where the delay goes (median ms): queued → run_started ${median(pickups).toFixed(0)}, run_started → maker_started ${median(preparing).toFixed(0)} (worktrees, baseline gate)`,
          `gap before each event up to the maker (median ms), burst: ${describeMedians(steps)}`,
          `alone: ${describeMedians(aloneSteps)}`,
          `${all.length} events in ${((last - first) / 1000).toFixed(1)} s: ${eventsPerSecond.toFixed(0)} events/s; none lost in either scenario (seq contiguous per loop, global ids rising, ${reference.length} events per loop as alone)`,
          `most runs going at once: ${mostAtOnce([...timelines.values()])}`,
          `memory, sampled every ${sampleEveryMs} ms: at most ${sampled.most} controllers alive at once, their proportional set size (PSS: shared pages split between the processes sharing them) summed at most ${mib(sampled.pssKib)}, their RSS summed at most ${mib(sampled.rssKib)}, their private memory (USS: pages no other process maps) summed at most ${mib(sampled.ussKib)}`,
          `memory, system-wide: the available memory (MemAvailable) dropped by at most ${mib(sampled.availableDropKib)} against before serve started (everything on the machine included: the service, git, other processes)`,
          `memory: the ${controllerPeaks.length} controller processes that ran the ${burst} loops: peak RSS sum ${mib(memoryKib)} (target < 4 GiB: ${memoryKib < memoryTargetKib ? "met" : "NOT met"}; peaks of different moments added, shared pages counted once per process: the strictest figure); each: median ${mib(median(controllerPeaks))}, max ${mib(Math.max(...controllerPeaks))}; the service's own peak ${mib(servicePeakKib)}`,
        ],
      },
    ];
  } finally {
    await store.close();
    if (service.exitCode === null) {
      service.kill("SIGTERM");
      await new Promise((done) => service.once("exit", done));
    }
    await sandbox.cleanup();
  }
}

/** The loops' timelines, checked: all verified, nothing lost (see `checkNothingLost`). */
async function readTimelines(
  store: Store,
  ids: string[],
  reference: string[],
  feed: StoredEvent[],
): Promise<Map<string, StoredEvent[]>> {
  const timelines = new Map<string, StoredEvent[]>();
  for (const id of ids) timelines.set(id, await store.readEvents(id));
  const problems = checkNothingLost(timelines, reference, feed);
  if (problems.length > 0) throw new Error(`events lost or out of order:\n${problems.join("\n")}`);
  const notVerified = [...timelines].filter(
    ([, events]) => events.findLast((event) => event.type === "loop_stopped")?.data.reason !== "verified",
  );
  if (notVerified.length > 0) throw new Error(`not verified: ${notVerified.map(([id]) => id).join(", ")}`);
  return timelines;
}

function firstAt(events: StoredEvent[], type: string): number {
  const event = events.find((candidate) => candidate.type === type);
  if (!event) throw new Error(`no ${type} event in loop ${events[0]?.loopId}`);
  return Date.parse(event.at);
}

/**
 * The controller processes that ran the loops' last runs, from the `run ended` line each wrote to its
 * loop's controller.log (`[pid] run ended: {...}`): per process, its peak RSS (KiB) and CPU time (ms),
 * the highest it reported (a process running several loops reports once per loop, its figures rising).
 */
async function controllerProcesses(
  home: string,
  loopIds: string[],
): Promise<{ pid: number; peakRssKib: number; cpuMs: number }[]> {
  const byPid = new Map<number, { pid: number; peakRssKib: number; cpuMs: number }>();
  for (const loopId of loopIds) {
    const log = await readFile(join(home, "loops", loopId, "controller.log"), "utf8");
    const ended = [...log.matchAll(/\[(\d+)\] run ended: (\{.*\})$/gm)].at(-1);
    if (!ended) throw new Error(`loop ${loopId}: its controller.log has no \`run ended\` line:\n${log}`);
    const pid = Number(ended[1]);
    const summary = JSON.parse(ended[2]) as { peakRssKib: number; cpuMs: number };
    const known = byPid.get(pid) ?? { pid, peakRssKib: 0, cpuMs: 0 };
    known.peakRssKib = Math.max(known.peakRssKib, summary.peakRssKib);
    known.cpuMs = Math.max(known.cpuMs, summary.cpuMs);
    byPid.set(pid, known);
  }
  return [...byPid.values()];
}

/** The system's available memory (MemAvailable in /proc/meminfo), in KiB. */
function memAvailableKib(): number {
  return Number(
    /^MemAvailable:\s+(\d+) kB/m.exec(readFileSync("/proc/meminfo", "latin1"))?.[1] ?? Number.NaN,
  );
}

const sampleEveryMs = 500;

/**
 * Samples, until stopped, the controllers of the service of `home` (processes running controller-main
 * with that LOOPWRIGHT_HOME): the most alive at once, and the highest sums of their PSS, RSS and private
 * memory (USS: pages no other process maps; KiB); and the most the system's available memory dropped
 * below `availableBeforeKib`.
 */
function sampleControllers(
  home: string,
  availableBeforeKib: number,
): {
  stop(): Promise<{ most: number; pssKib: number; rssKib: number; ussKib: number; availableDropKib: number }>;
} {
  const found = { most: 0, pssKib: 0, rssKib: 0, ussKib: 0, availableDropKib: 0 };
  const marker = `\0LOOPWRIGHT_HOME=${home}\0`;
  const sample = () => {
    let count = 0;
    let pss = 0;
    let rss = 0;
    let uss = 0;
    for (const entry of readdirSync("/proc")) {
      if (!/^\d+$/.test(entry)) continue;
      try {
        if (!readFileSync(`/proc/${entry}/cmdline`, "latin1").includes("controller-main")) continue;
        if (!`\0${readFileSync(`/proc/${entry}/environ`, "latin1")}`.includes(marker)) continue;
        const rollup = readFileSync(`/proc/${entry}/smaps_rollup`, "latin1");
        pss += Number(/^Pss:\s+(\d+) kB/m.exec(rollup)?.[1] ?? 0);
        rss += Number(/^Rss:\s+(\d+) kB/m.exec(rollup)?.[1] ?? 0);
        uss += Number(/^Private_Clean:\s+(\d+) kB/m.exec(rollup)?.[1] ?? 0);
        uss += Number(/^Private_Dirty:\s+(\d+) kB/m.exec(rollup)?.[1] ?? 0);
        count += 1;
      } catch {
        // Gone meanwhile.
      }
    }
    found.most = Math.max(found.most, count);
    found.pssKib = Math.max(found.pssKib, pss);
    found.rssKib = Math.max(found.rssKib, rss);
    found.ussKib = Math.max(found.ussKib, uss);
    found.availableDropKib = Math.max(found.availableDropKib, availableBeforeKib - memAvailableKib());
  };
  const timer = setInterval(sample, sampleEveryMs);
  return {
    async stop() {
      clearInterval(timer);
      return found;
    },
  };
}

/** VmHWM of a live process, in KiB (Linux). */
function peakRssOfProcess(pid: number): number {
  const status = readFileSync(`/proc/${pid}/status`, "utf8");
  return Number(/^VmHWM:\s+(\d+) kB/m.exec(status)?.[1] ?? Number.NaN);
}

/** The most runs that were going at once (from each loop's `run_started` and `run_ended`). */
function mostAtOnce(timelines: StoredEvent[][]): number {
  const points = timelines.flatMap((events) =>
    events.flatMap((event) =>
      event.type === "run_started"
        ? [{ at: Date.parse(event.at), change: 1 }]
        : event.type === "run_ended"
          ? [{ at: Date.parse(event.at), change: -1 }]
          : [],
    ),
  );
  points.sort((a, b) => a.at - b.at || a.change - b.change);
  let current = 0;
  let most = 0;
  for (const point of points) {
    current += point.change;
    most = Math.max(most, current);
  }
  return most;
}

/**
 * Submits one loop per name, back to back (or one every `everyMs` at most), as `run --detach` does;
 * returns their ids in order.
 */
async function submit(
  context: AppContext,
  sandbox: BenchSandbox,
  names: string[],
  everyMs = 0,
): Promise<string[]> {
  const ids: string[] = [];
  const start = Date.now();
  for (const [index, name] of names.entries()) {
    const wait = start + index * everyMs - Date.now();
    if (wait > 0) await delay(wait);
    const path = await sandbox.spec(
      name,
      `name: ${name}
goal: done.txt exists.
repo: ./repo
maker: { engine: scripted, turns: [{ write: { done.txt: "done\\n" } }] }
gates: [{ id: done, kind: tests-pass, run: "test -f done.txt" }]
budget: { maxIterations: 2 }
`,
    );
    const { loop } = await submitLoop({ context, source: { path }, by: { via: "cli", name: "bench" } });
    ids.push(loop.id);
  }
  return ids;
}

async function waitForService(sandbox: BenchSandbox, pid: number, log: () => string): Promise<void> {
  const deadline = Date.now() + 60_000;
  while (Date.now() < deadline) {
    try {
      if (JSON.parse(await readFile(join(sandbox.home, "service.json"), "utf8")).pid === pid) return;
    } catch {
      // Not written yet.
    }
    await delay(50);
  }
  throw new Error(`the service did not start:\n${log()}`);
}

/** Waits until every loop's last run ended (`run_ended` after its `loop_stopped`). */
async function waitForStopped(store: Store, ids: string[], log: () => string): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  let pending = ids;
  while (Date.now() < deadline) {
    const still: string[] = [];
    for (const id of pending) {
      const events = await store.readEvents(id);
      const stopped = events.findLastIndex((event) => event.type === "loop_stopped");
      if (stopped < 0 || events.findLastIndex((event) => event.type === "run_ended") < stopped)
        still.push(id);
    }
    pending = still;
    if (pending.length === 0) return;
    await delay(250);
  }
  throw new Error(`${pending.length} loops did not stop in ${timeoutMs / 1000} s:\n${log().slice(-3000)}`);
}

/** Submission to the first maker command of each run, in ms. */
function delays(events: StoredEvent[]): number[] {
  return [gap(events, "loop_queued", "maker_started")];
}

function gap(events: StoredEvent[], from: string, to: string): number {
  const start = events.find((event) => event.type === from);
  const end = events.find((event) => event.type === to);
  if (!start || !end) throw new Error(`no ${start ? to : from} event in loop ${events[0]?.loopId}`);
  return Date.parse(end.at) - Date.parse(start.at);
}

/** The time before each event from `loop_queued` to the first `maker_started`, by event type. */
function stepGaps(events: StoredEvent[], gaps: Map<string, number[]>): void {
  const start = events.findIndex((event) => event.type === "loop_queued");
  const end = events.findIndex((event) => event.type === "maker_started");
  for (let index = start + 1; index <= end; index++)
    collect(gaps, events[index].type, Date.parse(events[index].at) - Date.parse(events[index - 1].at));
}

function typesOf(events: StoredEvent[]): string[] {
  return events.map((event) => event.type);
}

/** Every event of the store through the global feed, a page at a time. */
async function readAll(store: Store): Promise<StoredEvent[]> {
  const all: StoredEvent[] = [];
  for (;;) {
    const page = await store.readEventsAfter(all.at(-1)?.id ?? 0, 10_000);
    all.push(...page);
    if (page.length < 10_000) return all;
  }
}

function checkNothingLost(
  timelines: Map<string, StoredEvent[]>,
  reference: string[],
  feed: StoredEvent[],
): string[] {
  const problems: string[] = [];
  for (const [id, events] of timelines) {
    events.forEach((event, index) => {
      if (event.seq !== index + 1) problems.push(`${id}: event ${index + 1} has seq ${event.seq}`);
      if (index > 0 && event.id <= events[index - 1].id) problems.push(`${id}: id ${event.id} not rising`);
    });
    const types = typesOf(events).join(",");
    if (types !== reference.join(","))
      problems.push(`${id}: events ${types} differ from a lone loop's ${reference.join(",")}`);
  }
  for (let index = 1; index < feed.length; index++)
    if (feed[index].id <= feed[index - 1].id) problems.push(`global feed: id ${feed[index].id} not rising`);
  const burstIds = new Set(timelines.keys());
  const fromFeed = feed.filter((event) => burstIds.has(event.loopId)).length;
  const fromLoops = [...timelines.values()].reduce((total, events) => total + events.length, 0);
  if (fromFeed !== fromLoops) problems.push(`global feed holds ${fromFeed} events, the loops ${fromLoops}`);
  return problems;
}
