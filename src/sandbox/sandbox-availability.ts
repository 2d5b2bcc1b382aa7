/**
 * Whether commands can run in the operating-system sandbox here: Linux with a working `bwrap`
 * (bubblewrap; it needs unprivileged user namespaces, or root). Asked once per process by running a
 * trivial command in it; elsewhere the reason, in one line, for `doctor` and the timeline.
 */
import { execFile, spawnSync } from "node:child_process";
import { bubblewrapArguments, readOnlyPlan } from "./sandbox-plan.ts";

export type SandboxAvailability = { available: true } | { available: false; reason: string };

/** Set to `off` to run without the sandbox (for a machine where it misbehaves); says so everywhere. */
export const sandboxSwitchVariable = "LOOPWRIGHT_SANDBOX";

let cached: SandboxAvailability | undefined;

export function sandboxAvailability(env: NodeJS.ProcessEnv = process.env): SandboxAvailability {
  if (env[sandboxSwitchVariable] === "off")
    return { available: false, reason: `switched off by ${sandboxSwitchVariable}=off` };
  cached ??= probe();
  return cached;
}

/** The probe `primeSandboxAvailability` started, while it runs: a second call waits for it. */
let probing: Promise<void> | undefined;

/**
 * Runs the probe without blocking the event loop and keeps its answer, so that a long-lived process
 * (the service, which runs many loops on one thread) never waits on the synchronous probe later. One
 * probe at a time: a call while one runs (bin/loopwright.js starts `validate`'s before the CLI loads)
 * settles with it.
 */
export function primeSandboxAvailability(env: NodeJS.ProcessEnv = process.env): Promise<void> {
  if (env[sandboxSwitchVariable] === "off" || cached) return Promise.resolve();
  probing ??= probeInBackground().finally(() => {
    probing = undefined;
  });
  return probing;
}

async function probeInBackground(): Promise<void> {
  if (process.platform !== "linux") {
    cached = probe();
    return;
  }
  const outcome = await new Promise<{ error?: Error; status: number | null; stderr: string }>((resolve) => {
    execFile(
      "bwrap",
      bubblewrapArguments(readOnlyPlan, "/", ["true"]),
      { timeout: 10_000, encoding: "utf8" },
      (error, _stdout, stderr) => {
        const code = (error as (Error & { code?: unknown }) | null)?.code;
        // A spawn failure carries a string code (ENOENT); an exit status a number.
        if (error && typeof code !== "number") resolve({ error, status: null, stderr });
        else resolve({ status: typeof code === "number" ? code : 0, stderr });
      },
    );
  });
  cached ??= interpret(outcome);
}

function probe(): SandboxAvailability {
  if (process.platform !== "linux")
    return { available: false, reason: `no sandbox on ${process.platform} yet (bubblewrap is Linux only)` };
  const result = spawnSync("bwrap", bubblewrapArguments(readOnlyPlan, "/", ["true"]), {
    stdio: ["ignore", "ignore", "pipe"],
    encoding: "utf8",
    timeout: 10_000,
  });
  return interpret(result);
}

/** The probe's outcome in words: available, or why not. */
function interpret(result: { error?: Error; status: number | null; stderr: string }): SandboxAvailability {
  if (result.error)
    return {
      available: false,
      reason: `bwrap (bubblewrap) is not installed: ${(result.error as NodeJS.ErrnoException).code ?? result.error.message}`,
    };
  if (result.status !== 0)
    return {
      available: false,
      reason: `bwrap (bubblewrap) cannot create a sandbox here: ${result.stderr.trim().split("\n").at(-1) ?? `exit ${result.status}`}`,
    };
  return { available: true };
}
