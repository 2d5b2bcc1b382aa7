/**
 * Reading what a loop did, as a user or a script would: the events `run --json` and `resume --json`
 * stream, the timeline in the SQLite store, and `show <loop> --json`.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { DatabaseSync } from "node:sqlite";
import type { Sandbox } from "./loop-sandbox.ts";

/** An event as `--json` prints it; pass `LoopEvent` as `Event` for the typed payloads. */
export interface StreamedEvent {
  seq: number;
  type: string;
  data: Record<string, unknown>;
}

/** The events in the output of `run --json` or `resume --json`, in order (other lines are skipped). */
export function eventsIn<Event = StreamedEvent>(stdout: string): Event[] {
  return stdout
    .split("\n")
    .filter((line) => line.startsWith("{"))
    .map((line) => JSON.parse(line) as Event);
}

/** Every stored event of the sandbox's loops in order, as stored (`at` an ISO time, `data` JSON text). */
export function readTimeline(sandbox: Sandbox): { type: string; at: string; data: string }[] {
  const database = new DatabaseSync(join(sandbox.home, "loopwright.db"), { readOnly: true });
  try {
    return database.prepare("SELECT type, at, data FROM events ORDER BY seq").all() as {
      type: string;
      at: string;
      data: string;
    }[];
  } finally {
    database.close();
  }
}

/** `show <name> --json`, parsed; asserts that it succeeded. */
export async function loopSummary(sandbox: Sandbox, name: string, env?: NodeJS.ProcessEnv) {
  const show = await sandbox.cli(["show", name, "--json"], { env });
  assert.equal(show.code, 0, `show ${name}: ${show.stderr}`);
  return JSON.parse(show.stdout);
}
