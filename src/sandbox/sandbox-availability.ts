/**
 * Whether commands can run in the operating-system sandbox here: Linux with a working `bwrap`
 * (bubblewrap; it needs unprivileged user namespaces, or root). Asked once per process by running a
 * trivial command in it; elsewhere the reason, in one line, for `doctor` and the timeline. A success is
 * kept in the home and used while everything that decides it is unchanged (sandbox-probe-cache.ts).
 */
import { bubblewrapArguments, readOnlyPlan } from "./sandbox-plan.ts";
import {
  forgetProbeSuccess,
  probeKey,
  probeSucceededBefore,
  recordProbeSuccess,
} from "./sandbox-probe-cache.ts";

export type SandboxAvailability = { available: true } | { available: false; reason: string };

/** Set to `off` to run without the sandbox (for a machine where it misbehaves); says so everywhere. */
export const sandboxSwitchVariable = "LOOPWRIGHT_SANDBOX";

let cached: SandboxAvailability | undefined;

export function sandboxAvailability(env: NodeJS.ProcessEnv = process.env): SandboxAvailability {
  if (env[sandboxSwitchVariable] === "off")
    return { available: false, reason: `switched off by ${sandboxSwitchVariable}=off` };
  cached ??= knownAvailable() ?? remembered(probe());
  return cached;
}

/**
 * The probe run now, never a kept answer: `doctor` reports what bwrap does on this machine, including
 * what the kept success's key cannot see (a library bwrap loads, a policy reloaded). Its answer is then
 * this process's: a success is kept, a refusal drops any kept success, so that the commands after it
 * probe too (a stale success made every sandboxed turn fail on bwrap's error).
 */
export function sandboxAvailabilityNow(env: NodeJS.ProcessEnv = process.env): SandboxAvailability {
  if (env[sandboxSwitchVariable] === "off")
    return { available: false, reason: `switched off by ${sandboxSwitchVariable}=off` };
  cached = remembered(probe());
  if (!cached.available) forgetProbeSuccess();
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
  cached = knownAvailable();
  if (cached) return Promise.resolve();
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
  // node:child_process is taken when a probe runs: importing it loads net and the streams, which a
  // kept success (the usual case) never needs.
  const { execFile } = process.getBuiltinModule("node:child_process");
  const outcome = await new Promise<{ error?: Error; status: number | null; stderr: string }>((resolve) => {
    execFile("bwrap", probeArguments(), { timeout: 10_000, encoding: "utf8" }, (error, _stdout, stderr) => {
      const code = (error as (Error & { code?: unknown }) | null)?.code;
      // A spawn failure carries a string code (ENOENT); an exit status a number.
      if (error && typeof code !== "number") resolve({ error, status: null, stderr });
      else resolve({ status: typeof code === "number" ? code : 0, stderr });
    });
  });
  cached ??= remembered(interpret(outcome));
}

/**
 * What decides the probe here (sandbox-probe-cache.ts), once per process; undefined when it cannot be
 * known (then nothing is kept or read).
 */
let key: string | undefined | null = null;

function probeKeyOnce(): string | undefined {
  if (key === null) key = process.platform === "linux" ? probeKey(probeArguments()) : undefined;
  return key;
}

/** Available, when bwrap succeeded before with everything that decides it as it is now; else undefined. */
function knownAvailable(): SandboxAvailability | undefined {
  const current = probeKeyOnce();
  return current !== undefined && probeSucceededBefore(current) ? { available: true } : undefined;
}

/** `availability`, kept in the home when it is a success (a refusal is probed again next time). */
function remembered(availability: SandboxAvailability): SandboxAvailability {
  const current = probeKeyOnce();
  if (availability.available && current !== undefined) recordProbeSuccess(current);
  return availability;
}

function probeArguments(): string[] {
  return bubblewrapArguments(readOnlyPlan, "/", ["true"]);
}

function probe(): SandboxAvailability {
  if (process.platform !== "linux")
    return { available: false, reason: `no sandbox on ${process.platform} yet (bubblewrap is Linux only)` };
  const { spawnSync } = process.getBuiltinModule("node:child_process");
  const result = spawnSync("bwrap", probeArguments(), {
    stdio: ["ignore", "ignore", "pipe"],
    encoding: "utf8",
    timeout: 10_000,
  });
  return interpret(result);
}

/** The probe's outcome in words: available, or why not. */
function interpret(result: { error?: Error; status: number | null; stderr: string }): SandboxAvailability {
  if (result.error) {
    const error = result.error as NodeJS.ErrnoException & { killed?: boolean };
    if (error.code === "ENOENT")
      return { available: false, reason: "bwrap (bubblewrap) is not installed: ENOENT" };
    if (error.code === "ETIMEDOUT" || error.killed)
      return { available: false, reason: "bwrap (bubblewrap) did not answer its probe within 10 s" };
    return {
      available: false,
      reason: `bwrap (bubblewrap) could not be started: ${error.code ?? error.message}`,
    };
  }
  if (result.status !== 0)
    return {
      available: false,
      reason: `bwrap (bubblewrap) cannot create a sandbox here: ${result.stderr.trim().split("\n").at(-1) ?? `exit ${result.status}`}`,
    };
  return { available: true };
}
