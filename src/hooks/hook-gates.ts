/**
 * Running the spec's deterministic gates for a hook: on the user's working tree as it is (hook mode has
 * no worktree of its own), full logs in `.loopwright/logs/`, and for each failure the bounded digest the
 * block reason quotes. Loaded only when a gate really runs.
 */
import { digestLog, renderDigest } from "../gates/digest/index.ts";
import { runGates } from "../gates/run-gates.ts";
import type { HookLayout } from "./hook-layout.ts";
import type { HookGate } from "./hook-spec.ts";

export interface HookGateResult {
  gate: HookGate;
  passed: boolean;
  /** `exit 1 after 0.4 s`, `timed out after 600 s`, `could not start: ...`. */
  ending: string;
  logPath: string;
  /** The rendered failure digest (failures only). */
  digest?: string;
}

/** Bytes of digest quoted per failing gate in a block reason. */
const digestBytes = 6 * 1024;
/** Bytes of output tail quoted when the digest recognized no failure. */
const tailBytes = 2 * 1024;

export async function runHookGates(layout: HookLayout, gates: HookGate[]): Promise<HookGateResult[]> {
  const outcomes = await runGates(
    gates.map((gate) => ({
      id: gate.id,
      kind: gate.kind,
      command: gate.run ?? "",
      timeoutMs: gate.timeoutMs,
      parallel: gate.parallel,
    })),
    { cwd: layout.root, logDirectory: layout.logs, runId: `hook-${process.pid}`, stepPrefix: "hook" },
  );
  return Promise.all(
    outcomes.map(async (outcome, index): Promise<HookGateResult> => {
      const seconds = `${(outcome.durationMs / 1000).toFixed(1)} s`;
      const ending = outcome.spawnError
        ? `could not start: ${outcome.spawnError}`
        : outcome.timedOut
          ? `timed out after ${seconds}`
          : `exit ${outcome.exitCode ?? "by signal"} after ${seconds}`;
      const result = { gate: gates[index], passed: outcome.passed, ending, logPath: outcome.logPath };
      if (outcome.passed) return result;
      const digest = await digestLog(outcome.logPath);
      const rendered = renderDigest(digest, digestBytes);
      // A log no parser understands: its last lines say more than an empty digest.
      const tail = digest.totalFailures === 0 ? lastBytes(outcome.tail, tailBytes) : "";
      return { ...result, digest: tail ? `${rendered}Last lines of its output:\n${tail}` : rendered };
    }),
  );
}

function lastBytes(text: string, limit: number): string {
  const bytes = Buffer.from(text.trimEnd());
  if (bytes.length <= limit) return bytes.toString("utf8");
  const cut = bytes.subarray(bytes.length - limit).toString("utf8");
  return cut.slice(cut.indexOf("\n") + 1);
}
