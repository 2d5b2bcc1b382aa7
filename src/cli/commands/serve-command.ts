/**
 * `serve`: the long-lived service. Supervises loops (queue, caps, recovery, schedules), announces itself
 * in `<home>/service.json`, and on SIGTERM, Ctrl-C or a hang-up lets every running step reach its next event
 * boundary for up to 10 s, then exits; a second signal exits at once. Whatever did not finish is
 * recovered by the next start, as after `kill -9`.
 */
import { UsageError } from "../../errors.ts";
import { findTaggedProcesses, runIdVariable } from "../../process/sweep.ts";
import { describeCaps, parseMaxActive, parseProviderCaps } from "../../service/caps.ts";
import { claimServiceFile, currentServiceInfo, removeServiceFile } from "../../service/service-file.ts";
import { createSupervisor } from "../../service/supervisor.ts";
import { openSession } from "../session.ts";

/** How long running steps get to reach their next event boundary after SIGTERM. */
const shutdownGraceMs = 10_000;

export interface ServeOptions {
  host: string;
  port: string;
  maxActive?: string;
  maxPerProvider?: string;
}

export async function serveCommand(options: ServeOptions): Promise<number> {
  const caps = {
    maxActive: parseMaxActive(options.maxActive),
    maxPerProvider: parseProviderCaps(options.maxPerProvider),
  };
  const port = parsePort(options.port);
  const session = await openSession();
  const running = await claimServiceFile(session.home, currentServiceInfo(options.host, port));
  if (running) {
    await session.store.close();
    throw new UsageError(`a service already runs for ${session.home}: pid ${running.pid}, ${running.url}`);
  }
  const log = (line: string) => process.stdout.write(`${new Date().toISOString()} ${line}\n`);
  const supervisor = createSupervisor({ store: session.store, home: session.home, caps, log });
  log(`loopwright serve: pid ${process.pid}, ${describeCaps(caps)}; home ${session.home}`);
  supervisor.start();

  const { promise: stopRequested, resolve: requestStop } = Promise.withResolvers<string>();
  let stopping = false;
  const onSignal = (signal: NodeJS.Signals) => {
    if (stopping) {
      killTaggedNow(new Set(supervisor.runs().flatMap((run) => (run.runId ? [run.runId] : []))));
      process.exit(130);
    }
    stopping = true;
    requestStop(signal);
  };
  process.on("SIGTERM", onSignal);
  process.on("SIGINT", onSignal);
  process.on("SIGHUP", onSignal); // the terminal closed: stop as cleanly as for SIGTERM
  const signal = await stopRequested;
  const count = supervisor.runs().length;
  log(
    `${signal}: stopping; ${count} running loop${count === 1 ? "" : "s"} get up to ${shutdownGraceMs / 1000} s to reach a step boundary`,
  );
  const unfinished = await supervisor.shutdown(shutdownGraceMs);
  if (unfinished.length > 0) {
    // Their steps did not end in time: stop what they started; the next start recovers them as interrupted.
    killTaggedNow(new Set(unfinished.flatMap((run) => (run.runId ? [run.runId] : []))));
    log(`left mid-step (recovered at the next start): ${unfinished.map((run) => run.name).join(", ")}`);
  }
  await removeServiceFile(session.home);
  log("stopped");
  // Abandoned steps may still hold timers and children: leave without waiting for them.
  process.exit(0);
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
