/**
 * SSE fan-out: 100 clients (in a process of their own, see sse-clients.ts) connected to `/api/events` of
 * the real server (createServer with the dashboard mounted, listening on loopback, in this process), and
 * events appended at 40 per second: first through the server's own store (as an owner's action through
 * the API appends: the live feed is nudged at once), then through a second store handle that the feed only
 * sees by polling SQLite (as the loops' controller processes, one per loop, and a foreground `run` append;
 * poll period 50 ms). Measured: the
 * delay from the start of each append to each client's receipt of that event (every event at every
 * client; a missing or repeated one fails the benchmark). Baseline: a plain HTTP GET round trip (the
 * dashboard's script) on the same server in the same run, with the 100 streams open.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { createInterface, type Interface } from "node:readline";
import { setTimeout as delay } from "node:timers/promises";
import type { EventPayloads } from "../src/core/events.ts";
import { eventSchemaVersion } from "../src/core/events.ts";
import { parseSpecText } from "../src/core/spec-file.ts";
import { createLoop } from "../src/loop/create-loop.ts";
import { createServer } from "../src/server/create-server.ts";
import { mountDashboard } from "../src/server/dashboard/mount-dashboard.ts";
import { listen } from "../src/server/listen.ts";
import { openStore } from "../src/store/open-store.ts";
import type { Store } from "../src/store/store.ts";
import { type BenchRow, createBenchSandbox, epochMs, median, percentile } from "./support.ts";

const clients = 100;
const eventsPerPhase = 150;
const gapMs = 25;
const roundTrips = 200;
const targetMs = 100;
const clientScript = new URL("./sse-clients.ts", import.meta.url).pathname;

export async function benchSseFanout(): Promise<BenchRow[]> {
  const sandbox = await createBenchSandbox();
  const store = await openStore(sandbox.home);
  const other = await openStore(sandbox.home);
  const server = createServer({
    store,
    home: sandbox.home,
    log: (line) => process.stderr.write(`${line}\n`),
    mount: (app, dependencies) => mountDashboard(app, dependencies),
  });
  const listening = await listen(server, { host: "127.0.0.1", port: 0 });
  let child: ChildProcess | undefined;
  try {
    const parsed = parseSpecText(
      `name: fanout
goal: A loop whose timeline the benchmark appends to.
repo: ./repo
maker: { engine: scripted, turns: [{ write: { a.txt: "a\\n" } }] }
gates: [{ id: tests, kind: tests-pass, run: "true" }]
`,
      "fanout.yaml",
      sandbox.root,
    );
    const loop = await createLoop(
      store,
      { ...parsed, specPath: `${sandbox.root}/fanout.yaml` },
      sandbox.repo,
      await sandbox.git("rev-parse", "HEAD"),
    );
    child = spawn(
      process.execPath,
      [clientScript, listening.url, String(clients), String(2 * eventsPerPhase)],
      { env: sandbox.env, stdio: ["pipe", "pipe", "inherit"] },
    );
    const lines = createInterface({ input: child.stdout as NodeJS.ReadableStream });
    const exited = new Promise<never>((_, reject) =>
      child?.once("exit", (code) => reject(new Error(`the SSE clients exited (${code})`))),
    );
    exited.catch(() => {});
    await Promise.race([nextLine(lines, (line) => line === "ready"), exited]);
    if (server.feed.subscriberCount() !== clients)
      throw new Error(`${server.feed.subscriberCount()} subscribers, expected ${clients}`);
    child.stdin?.write(`rtt ${roundTrips}\n`);
    const { rtt } = JSON.parse(
      await Promise.race([nextLine(lines, (line) => line.startsWith('{"rtt"')), exited]),
    ) as { rtt: number[] };

    const appendedAt = new Map<number, number>();
    const appendMs: number[] = [];
    const nudged = await appendPhase(server.context.store, loop.id, appendedAt, appendMs);
    await appendPhase(other, loop.id, appendedAt, appendMs);
    const timer = setTimeout(() => child?.stdin?.write("done\n"), 60_000);
    const { received } = JSON.parse(
      await Promise.race([nextLine(lines, (line) => line.startsWith('{"received"')), exited]),
    ) as { received: [number, number][][] };
    clearTimeout(timer);

    const delays = { nudged: [] as number[], polled: [] as number[] };
    for (const [client, list] of received.entries()) {
      const ids = list.map(([id]) => id);
      const wanted = [...appendedAt.keys()];
      if (ids.join(",") !== wanted.join(","))
        throw new Error(
          `client ${client} received ${ids.length} events, not the ${wanted.length} appended, in order`,
        );
      for (const [id, at] of list) {
        const sent = appendedAt.get(id) as number;
        (nudged.has(id) ? delays.nudged : delays.polled).push(at - sent);
      }
    }
    const all = [...delays.nudged, ...delays.polled];
    const row = (name: string, values: number[], target: boolean): BenchRow => ({
      name,
      median: percentile(values, 95),
      baselineName: "HTTP GET round trip, median",
      baselineMedian: median(rtt),
      ratio: percentile(values, 95) / median(rtt),
      target: target ? `< ${targetMs} ms` : "–",
      met: percentile(values, 95) < targetMs,
      samples: values,
      baselineSamples: rtt,
      details: [],
    });
    const rows = [
      row("sse-fanout: append → client p95", all, true),
      row("sse-fanout: in-service appends p95", delays.nudged, false),
      row("sse-fanout: other-process appends p95", delays.polled, false),
    ];
    rows[0].details = [
      `${clients} clients × ${appendedAt.size} events (${eventsPerPhase} nudged, ${eventsPerPhase} polled), every event delivered once and in order`,
      `delay medians: all ${median(all).toFixed(1)} ms, in-service ${median(delays.nudged).toFixed(1)} ms, other process ${median(delays.polled).toFixed(1)} ms; max ${Math.max(...all).toFixed(0)} ms`,
      `append itself (durable) median ${median(appendMs).toFixed(1)} ms; HTTP round trip p95 ${percentile(rtt, 95).toFixed(1)} ms`,
    ];
    return rows;
  } finally {
    child?.kill("SIGTERM");
    await listening.close();
    await other.close();
    await store.close();
    await sandbox.cleanup();
  }
}

/** Appends `eventsPerPhase` gate events, one every `gapMs`; returns their ids. */
async function appendPhase(
  store: Store,
  loopId: string,
  appendedAt: Map<number, number>,
  appendMs: number[],
): Promise<Set<number>> {
  const ids = new Set<number>();
  const tail = Array.from({ length: 30 }, (_, line) => `ok ${line + 1} - case ${line + 1}`).join("\n");
  for (let index = 0; index < eventsPerPhase; index++) {
    const started: EventPayloads["gate_started"] = {
      iteration: 1,
      gateId: "tests",
      phase: "grade",
      sha: "0".repeat(40),
    };
    const ended: EventPayloads["gate_ended"] = {
      iteration: 1,
      result: {
        id: "tests",
        kind: "tests-pass",
        command: "npm test",
        phase: "grade",
        sha: "0".repeat(40),
        exitCode: 0,
        passed: true,
        timedOut: false,
        durationMs: 900,
        logPath: "/tmp/tests.log",
        tail,
        survivorsKilled: 0,
      },
    };
    const [type, data] = index % 2 === 0 ? ["gate_started", started] : ["gate_ended", ended];
    const start = epochMs();
    const event = await store.appendEvent(loopId, type, data as Record<string, unknown>, eventSchemaVersion);
    appendMs.push(epochMs() - start);
    appendedAt.set(event.id, start);
    ids.add(event.id);
    await delay(gapMs);
  }
  return ids;
}

function nextLine(lines: Interface, matches: (line: string) => boolean): Promise<string> {
  return new Promise((resolve) => {
    const onLine = (line: string) => {
      if (!matches(line)) return;
      lines.off("line", onLine);
      resolve(line);
    };
    lines.on("line", onLine);
  });
}
