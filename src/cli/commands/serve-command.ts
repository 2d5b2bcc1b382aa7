/**
 * `serve`: the long-lived service. Supervises loops (queue, caps, recovery, schedules), announces itself
 * in `<home>/service.json`, and on SIGTERM, Ctrl-C or a hang-up lets every running step reach its next event
 * boundary for up to 10 s, then exits; a second signal exits at once. Whatever did not finish is
 * recovered by the next start, as after `kill -9`.
 */
import { UsageError } from "../../errors.ts";
import { findTaggedProcesses, runIdVariable } from "../../process/sweep.ts";
import { createServer } from "../../server/create-server.ts";
import { mountDashboard } from "../../server/dashboard/mount-dashboard.ts";
import { type Listening, listen } from "../../server/listen.ts";
import { describeCaps, parseMaxActive, parseProviderCaps } from "../../service/caps.ts";
import { defaultLoopsPerController } from "../../service/controller-pool.ts";
import { shutdownGraceMs } from "../../service/controller-protocol.ts";
import {
  claimServiceFile,
  currentServiceInfo,
  readServiceFile,
  removeServiceFile,
  type ServiceInfo,
} from "../../service/service-file.ts";
import { createSupervisor, type SupervisedRun, type Supervisor } from "../../service/supervisor.ts";
import { wakingStore } from "../../service/waking-store.ts";
import { openSession } from "../session.ts";

/**
 * How long the service waits for its controllers after forwarding SIGTERM: their own grace for a step to
 * reach its boundary (`shutdownGraceMs`), then the time to kill an abandoned step's processes and exit.
 */
const controllersExitMs = shutdownGraceMs + 2_000;

export interface ServeOptions {
  host: string;
  port: string;
  maxActive?: string;
  maxPerProvider?: string;
  /** Free places for loops kept ready in controllers started ahead (default 2). */
  idleControllers?: string;
  /** How many loops one controller process runs in its life (default 4). */
  loopsPerController?: string;
  /** Required with a --host other than loopback; default LOOPWRIGHT_TOKEN. */
  token?: string;
  /** More Host names the service answers (comma-separated `name` or `name:port`), e.g. a proxy's. */
  allowHost?: string;
}

export async function serveCommand(options: ServeOptions): Promise<number> {
  const caps = {
    maxActive: parseMaxActive(options.maxActive),
    maxPerProvider: parseProviderCaps(options.maxPerProvider),
  };
  const port = parsePort(options.port);
  const idleControllers = parseIdleControllers(options.idleControllers);
  const loopsPerController = parseLoopsPerController(options.loopsPerController);
  const session = await openSession();
  const log = (line: string) => process.stdout.write(`${new Date().toISOString()} ${line}\n`);
  let supervisor: Supervisor | undefined;
  // From here on a signal stops the service cleanly (one during start-up: as soon as it is up).
  const stop = watchStopSignals(() => supervisor);
  let listening: Listening | undefined;
  try {
    const running = await readServiceFile(session.home);
    if (running) throw alreadyRunning(session.home, running);
    let wake = () => {}; // the supervisor is made once the server is: a loop queued through the API wakes it
    const server = createServer({
      store: wakingStore(session.store, () => wake()),
      home: session.home,
      host: options.host,
      port,
      token: options.token,
      allowHosts: options.allowHost
        ?.split(",")
        .map((name) => name.trim())
        .filter(Boolean),
      log,
      // A spec pasted in the dashboard reads its relative paths (repo: ./...) from where serve started.
      mount: (app, dependencies) => mountDashboard(app, { ...dependencies, specFolder: process.cwd() }),
    });
    listening = await listen(server, { host: options.host, port }).catch((error: NodeJS.ErrnoException) => {
      throw new UsageError(`cannot listen on ${options.host}:${port}: ${error.code ?? error.message}`);
    });
    const claimed = await claimServiceFile(session.home, currentServiceInfo(options.host, listening.port));
    if (claimed) throw alreadyRunning(session.home, claimed);
    // The loops' own appends go through the server's store too: its live feed streams them at once.
    supervisor = createSupervisor({
      store: server.context.store,
      home: session.home,
      caps,
      log,
      idleControllers,
      loopsPerController,
    });
    wake = supervisor.wake;
    log(
      `loopwright serve: ${listening.url}, pid ${process.pid}, ${describeCaps(caps)}; home ${session.home}`,
    );
    supervisor.start();
  } catch (error) {
    await listening?.close();
    await session.store.close();
    stop.dispose();
    throw error;
  }

  const signal = await stop.requested;
  const count = supervisor.runs().length;
  log(
    `${signal}: stopping; ${count} running loop${count === 1 ? "" : "s"} get up to ${shutdownGraceMs / 1000} s to reach a step boundary`,
  );
  const [unfinished] = await Promise.all([supervisor.shutdown(controllersExitMs), listening.close()]);
  if (unfinished.length > 0) {
    // Their controllers did not leave in time: kill them and what they started; the next start recovers them.
    supervisor.kill();
    killTaggedNow(runIdsOf(unfinished));
    log(`left mid-step (recovered at the next start): ${unfinished.map((run) => run.name).join(", ")}`);
  }
  await removeServiceFile(session.home);
  log("stopped");
  // Abandoned steps may still hold timers and children: leave without waiting for them.
  process.exit(0);
}

function alreadyRunning(home: string, running: ServiceInfo): UsageError {
  return new UsageError(`a service already runs for ${home}: pid ${running.pid}, ${running.url}`);
}

/**
 * SIGTERM, SIGINT and SIGHUP (the terminal closed) request a clean stop; a second one kills the
 * controllers and what the running loops started, and exits at once (130).
 */
function watchStopSignals(supervisor: () => Supervisor | undefined): {
  requested: Promise<string>;
  dispose(): void;
} {
  const { promise: requested, resolve } = Promise.withResolvers<string>();
  let stopping = false;
  const onSignal = (signal: NodeJS.Signals) => {
    if (stopping) {
      supervisor()?.kill();
      killTaggedNow(runIdsOf(supervisor()?.runs() ?? []));
      process.exit(130);
    }
    stopping = true;
    resolve(signal);
  };
  const signals = ["SIGTERM", "SIGINT", "SIGHUP"] as const;
  for (const signal of signals) process.on(signal, onSignal);
  const dispose = () => {
    for (const signal of signals) process.off(signal, onSignal);
  };
  return { requested, dispose };
}

function runIdsOf(runs: SupervisedRun[]): Set<string> {
  return new Set(runs.flatMap((run) => (run.runId ? [run.runId] : [])));
}

function parseIdleControllers(value: string | undefined): number {
  if (value === undefined) return 2;
  if (!/^\s*\d+\s*$/.test(value) || Number(value) > 64)
    throw new UsageError(`--idle-controllers: not a whole number from 0 to 64: ${value}`);
  return Number(value);
}

function parseLoopsPerController(value: string | undefined): number {
  if (value === undefined) return defaultLoopsPerController;
  if (!/^\s*\d+\s*$/.test(value) || Number(value) < 1 || Number(value) > 64)
    throw new UsageError(`--loops-per-controller: not a whole number from 1 to 64: ${value}`);
  return Number(value);
}

function parsePort(value: string): number {
  const port = Number(value);
  if (!/^\s*\d+\s*$/.test(value) || port > 65_535)
    throw new UsageError(`--port: not a port number: ${value}`);
  return port;
}

/** SIGKILL to every process tagged with one of `runIds` (Linux /proc; elsewhere none are found). */
function killTaggedNow(runIds: Set<string>): void {
  if (runIds.size === 0) return;
  for (const pid of findTaggedProcesses(runIdVariable, (value) => runIds.has(value))) {
    try {
      process.kill(pid, "SIGKILL");
    } catch {
      // Gone already.
    }
  }
}
