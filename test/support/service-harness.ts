/**
 * Driving `loopwright serve` as a user does: the real binary as a child process in a sandbox's home,
 * loops submitted with `run --detach`, and what happened read back from the SQLite timeline.
 */
import assert from "node:assert/strict";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { DatabaseSync } from "node:sqlite";
import type { CliResult, Sandbox } from "./loop-sandbox.ts";
import { waitFor } from "./wait-for.ts";

export interface ServiceProcess {
  pid: number;
  /** stdout and stderr so far (the service's log). */
  output(): string;
  /** Resolves when the process has exited. */
  done: Promise<CliResult>;
  signalCode(): NodeJS.Signals | null;
  kill(signal: NodeJS.Signals): void;
}

/** Starts `serve` with `args` and waits until it is up (service.json names it, its supervisor runs). */
export async function startService(
  sandbox: Sandbox,
  args: string[] = [],
  env: NodeJS.ProcessEnv = {},
): Promise<ServiceProcess> {
  const child = sandbox.spawnCli(["serve", "--port", "0", ...args], { env });
  const output = () => {
    const { stdout, stderr } = child.output();
    return stdout + stderr;
  };
  let exited = false;
  void child.done.then(() => {
    exited = true;
  });
  const announced = () => {
    try {
      return JSON.parse(readFileSync(join(sandbox.home, "service.json"), "utf8")).pid === child.pid;
    } catch {
      return false;
    }
  };
  // Up: it names itself in service.json, and its supervisor has started (it says so).
  await waitFor(
    () => exited || (announced() && output().includes("loopwright serve: ")),
    "the service to start",
  );
  assert.equal(exited, false, `serve exited at once: ${output()}`);
  return {
    pid: child.pid as number,
    output,
    done: child.done,
    signalCode: () => child.signalCode,
    kill: (signal) => child.kill(signal),
  };
}

/** `run --detach <spec>` for a spec written as `<name>.yaml` in the sandbox root; asserts it was queued. */
export async function submit(
  sandbox: Sandbox,
  name: string,
  spec: string,
  env: NodeJS.ProcessEnv = {},
): Promise<string> {
  const path = await sandbox.spec(spec, join(sandbox.root, `${name}.yaml`));
  const detached = await sandbox.cli(["run", "--detach", path], { env });
  assert.equal(detached.code, 0, detached.stdout + detached.stderr);
  assert.match(detached.stdout, new RegExp(`loop ${name} \\(\\S+\\) queued`));
  return path;
}

/** An event as stored, with its loop's name. */
export interface StoredRow {
  loop: string;
  loopId: string;
  seq: number;
  type: string;
  at: string;
  data: Record<string, unknown>;
}

/** Every stored event of the sandbox's loops, loop by loop in order. */
export function timelines(sandbox: Sandbox): Map<string, StoredRow[]> {
  const path = join(sandbox.home, "loopwright.db");
  const byLoop = new Map<string, StoredRow[]>();
  if (!existsSync(path)) return byLoop;
  const database = new DatabaseSync(path, { readOnly: true });
  try {
    const rows = database
      .prepare(
        "SELECT loops.name AS loop, events.loop_id AS loopId, seq, type, at, data FROM events JOIN loops ON loops.id = events.loop_id ORDER BY loops.name, seq",
      )
      .all() as { loop: string; loopId: string; seq: number; type: string; at: string; data: string }[];
    for (const row of rows) {
      const list = byLoop.get(row.loop) ?? [];
      list.push({ ...row, data: JSON.parse(row.data) });
      byLoop.set(row.loop, list);
    }
    return byLoop;
  } finally {
    database.close();
  }
}

/**
 * Waits until every named loop has stopped (its last `loop_stopped` after its last `run_started`, and
 * the run ended); on a timeout, the error names each loop's last event.
 */
export async function waitForStopped(sandbox: Sandbox, names: string[], what: string, timeoutMs = 120_000) {
  const stopped = (events: StoredRow[]) => {
    const lastStop = events.findLastIndex((event) => event.type === "loop_stopped");
    const lastStart = events.findLastIndex((event) => event.type === "run_started");
    const ended = events.findLastIndex((event) => event.type === "run_ended");
    return lastStop > lastStart && ended > lastStop;
  };
  try {
    await waitFor(
      () => {
        const all = timelines(sandbox);
        return names.every((name) => stopped(all.get(name) ?? []));
      },
      what,
      timeoutMs,
    );
  } catch (error) {
    const all = timelines(sandbox);
    const where = names.map((name) => `${name}: ${(all.get(name) ?? []).at(-1)?.type ?? "no event"}`);
    throw new Error(`${(error as Error).message} (${where.join(", ")})`);
  }
}

/** Each run of each loop as [start, end] in ms, from its `run_started` and `run_ended` events. */
export function runIntervals(all: Map<string, StoredRow[]>): { loop: string; start: number; end: number }[] {
  const intervals: { loop: string; start: number; end: number }[] = [];
  for (const [loop, events] of all) {
    const starts = new Map<string, number>();
    for (const event of events) {
      const runId = String(event.data.runId);
      if (event.type === "run_started") starts.set(runId, Date.parse(event.at));
      if (event.type === "run_ended") {
        const start = starts.get(runId);
        assert.ok(start !== undefined, `${loop}: run ${runId} ended without starting`);
        intervals.push({ loop, start, end: Date.parse(event.at) });
        starts.delete(runId);
      }
    }
    assert.deepEqual([...starts.keys()], [], `${loop}: every run ended`);
  }
  return intervals;
}

/** The most runs going at once (a run ending at the instant another starts does not overlap it). */
export function mostAtOnce(intervals: { start: number; end: number }[]): number {
  const points = intervals.flatMap((interval) => [
    { at: interval.start, change: 1 },
    { at: interval.end, change: -1 },
  ]);
  points.sort((a, b) => a.at - b.at || a.change - b.change);
  let current = 0;
  let most = 0;
  for (const point of points) {
    current += point.change;
    most = Math.max(most, current);
  }
  return most;
}

/** Stops a service with SIGTERM and waits for it; asserts it exited 0. */
export async function stopService(service: ServiceProcess): Promise<void> {
  service.kill("SIGTERM");
  const result = await service.done;
  assert.equal(result.code, 0, service.output());
}
