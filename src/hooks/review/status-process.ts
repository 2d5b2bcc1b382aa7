/**
 * The one `git status` a stop (and a prompt with open work) reads the working tree from, started as
 * early as possible: by the hook launcher (`.loopwright/hook`) before Node starts, else as soon as the
 * hook knows its checkout. Either way git runs on another core while Node loads.
 *
 * The launcher's run is used only where it is exactly the run this module would make: the same
 * folder (the checkout root, byte for byte), the same git executable (found as `gitExecutable`
 * finds it), the same arguments and environment settings (the launcher passes the signature it was
 * written with: a launcher written by another version does not match), and git exited 0. Anything
 * else (another checkout, git failed, the pipe cannot be read) discards it and runs git here, so the
 * answer is the same as without the launcher's head start; only its stderr is not kept (a status that
 * exited 0 is read for its stdout alone). Using it, the hook never loads node:child_process (with the
 * streams and net it pulls in): about 0.3× `node -e ''` of CPU per stop on a 2-core machine
 * (experiment in /tmp: a script doing a stop's file work, git from a shell pipe 1.12×, from
 * child_process 1.40×, interleaved runs).
 */
import { closeSync, fstatSync, readSync } from "../../files/node-fs.ts";
import {
  type GitResult,
  gitExecutable,
  gitResult,
  gitSettings,
  neutralisingArguments,
  repositoryLocatingVariables,
} from "../../git/git.ts";

/** The status arguments: porcelain v2, NUL-separated, HEAD's commit, every untracked file, no renames. */
export const statusArguments: readonly string[] = [
  "--no-optional-locks",
  "status",
  "--porcelain=v2",
  "-z",
  "--branch",
  "--untracked-files=all",
  "--no-renames",
];

/** The launcher's variables for the `git status` it started, and the descriptor its output comes on. */
export const launcherStatusVariables = {
  /** The folder git ran in (`git -C`). */
  folder: "LOOPWRIGHT_HOOK_STATUS_FOLDER",
  /** The git executable it ran. */
  git: "LOOPWRIGHT_HOOK_STATUS_GIT",
  /** `launcherStatusSignature()` as the launcher was written. */
  signature: "LOOPWRIGHT_HOOK_STATUS_SIGNATURE",
  /** Set (to `launcherLifelineDescriptor`) where Node holds the lifeline of git's watcher. */
  lifeline: "LOOPWRIGHT_HOOK_STATUS_LIFELINE",
} as const;
export const launcherStatusDescriptor = 3;
/**
 * The write end of a pipe that only Node holds, where the launcher's watcher waits for its end (dash):
 * closed, it ends the launcher's git. Node closes it once the status is read or discarded, so that no
 * gate or git it starts later inherits it; else it closes as Node exits.
 */
export const launcherLifelineDescriptor = 6;
/** What the launcher writes after git's stdout: this, git's exit code, and a newline. */
export const launcherStatusTrailer = "\nloopwright-status-exit ";

/**
 * The most the launcher's pipe is read for: git's own status is capped at 256 MB (git.ts), and its
 * trailer is a few bytes. A status that is longer is discarded (the hook's own git then meets that cap).
 */
export const launcherStatusLimitBytes = 256 * 1024 * 1024 + 64;

/**
 * Everything `descriptor` holds up to its end, as UTF-8, or undefined once it has more than
 * `limitBytes` (the rest is left unread). Throws what reading throws (EAGAIN on a non-blocking pipe).
 */
export function readLimited(descriptor: number, limitBytes: number): string | undefined {
  const chunks: Buffer[] = [];
  let total = 0;
  for (;;) {
    const chunk = Buffer.allocUnsafe(Math.min(64 * 1024, limitBytes + 1 - total));
    const read = readSync(descriptor, chunk, 0, chunk.length, null);
    if (read === 0) return Buffer.concat(chunks, total).toString("utf8");
    chunks.push(chunk.subarray(0, read));
    total += read;
    if (total > limitBytes) return undefined;
  }
}

/** Everything that decides git's answer besides the folder and the executable, as one string. */
export function launcherStatusSignature(): string {
  return JSON.stringify({
    args: ["--no-pager", ...neutralisingArguments, ...statusArguments],
    settings: gitSettings,
    unset: repositoryLocatingVariables,
  });
}

/** A `git status` the launcher started, taken from the environment (see `takeLauncherStatus`). */
export interface LauncherStatus {
  folder: string;
  git: string;
  signature: string;
  /** Set once its output is read or discarded. */
  settled: boolean;
  /** Whether Node holds the watcher's lifeline (`launcherLifelineDescriptor`), to close when settled. */
  lifeline: boolean;
}

/**
 * The `git status` the launcher started, if it did and its pipe is on descriptor 3; removes its
 * variables from `env` so that nothing this hook starts (a gate) inherits them. Call
 * `discardLauncherStatus` when done with it. Descriptor 3 is read and closed only when the launcher
 * said it passed one and it is a pipe: a launcher written before its shells were known to start Node
 * without it (ksh93, mksh: their `exec 3<&0` is close-on-exec) leaves descriptor 3 to Node's own
 * event loop, which reading or closing would break (Node aborts).
 */
export function takeLauncherStatus(env: NodeJS.ProcessEnv): LauncherStatus | undefined {
  const folder = env[launcherStatusVariables.folder];
  const git = env[launcherStatusVariables.git];
  const signature = env[launcherStatusVariables.signature];
  const lifeline =
    env[launcherStatusVariables.lifeline] === String(launcherLifelineDescriptor) &&
    isPipe(launcherLifelineDescriptor);
  for (const name of Object.values(launcherStatusVariables)) delete env[name];
  if (folder === undefined || git === undefined || signature === undefined) return undefined;
  // One git process counts, used or not (see LOOPWRIGHT_GIT_TRACE in git.ts).
  const trace = env.LOOPWRIGHT_GIT_TRACE;
  if (trace) process.getBuiltinModule("node:fs").appendFileSync(trace, `${Date.now()} status\n`);
  if (!isPipe(launcherStatusDescriptor)) {
    if (lifeline) closeQuietly(launcherLifelineDescriptor);
    return undefined;
  }
  return { folder, git, signature, settled: false, lifeline };
}

function isPipe(descriptor: number): boolean {
  try {
    return fstatSync(descriptor).isFIFO();
  } catch {
    return false;
  }
}

/** Closes the launcher's pipe unread (git, if still writing, stops on a broken pipe). */
export function discardLauncherStatus(launched: LauncherStatus | undefined): void {
  if (!launched || launched.settled) return;
  launched.settled = true;
  closeQuietly(launcherStatusDescriptor);
  if (launched.lifeline) closeQuietly(launcherLifelineDescriptor);
}

function closeQuietly(descriptor: number): void {
  try {
    closeSync(descriptor);
  } catch {
    // Already closed: nothing to release.
  }
}

/**
 * `git status` of the checkout at `root`: the launcher's run when it is exactly this one and exited 0,
 * else a git started now. Rejects only when git cannot be started at all. The launcher's pipe is read
 * when the status is first awaited, not before: the handler's modules load and its spec is read
 * while git finishes on the other core (read here, Node waited for git 6–38 ms on a loaded 2-core
 * machine). Never awaited, it is closed unread by `discardLauncherStatus`: nothing is left pending.
 */
export function startStatus(root: string, launched?: LauncherStatus): PromiseLike<GitResult> {
  if (launched && !launched.settled) {
    if (isLauncherRun(root, launched)) return whenAwaited(() => launcherResult(launched) ?? ownStatus(root));
    discardLauncherStatus(launched);
  }
  return ownStatus(root);
}

function ownStatus(root: string): Promise<GitResult> {
  const status = gitResult(statusArguments, root);
  // Awaited by whoever reads it; a hook that fails before then must not die of an unhandled rejection.
  status.catch(() => {});
  return status;
}

/** A promise-like whose `produce` runs at its first `then` (an `await`), once. */
function whenAwaited<T>(produce: () => T | PromiseLike<T>): PromiseLike<T> {
  let produced: Promise<T> | undefined;
  return {
    // biome-ignore lint/suspicious/noThenProperty: a thenable is the point: it runs when awaited.
    then: (onFulfilled, onRejected) => {
      produced ??= Promise.resolve().then(produce);
      return produced.then(onFulfilled, onRejected);
    },
  };
}

function isLauncherRun(root: string, launched: LauncherStatus): boolean {
  return (
    launched.folder === root &&
    launched.signature === launcherStatusSignature() &&
    launched.git === gitExecutable(process.env.PATH)
  );
}

/** The launcher's status when it exited 0; undefined when it did not, or was discarded meanwhile. */
function launcherResult(launched: LauncherStatus): GitResult | undefined {
  if (launched.settled) return undefined;
  launched.settled = true;
  let text: string | undefined;
  try {
    // A blocking read of a pipe the shell made (blocking): git has usually exited by now.
    text = readLimited(launcherStatusDescriptor, launcherStatusLimitBytes);
  } catch {
    return undefined;
  } finally {
    closeQuietly(launcherStatusDescriptor);
    if (launched.lifeline) closeQuietly(launcherLifelineDescriptor);
  }
  return launcherOutput(text);
}

/**
 * git's stdout from what the launcher's pipe held, when git exited 0: the trailer ends it, and what
 * comes before is empty or ends in NUL, as every porcelain v2 -z record does. So output cut short
 * (git killed mid-write) whose last file name ends in a trailer of its own is never taken as whole.
 */
export function launcherOutput(text: string | undefined): GitResult | undefined {
  if (text === undefined) return undefined;
  const success = `${launcherStatusTrailer}0\n`;
  if (!text.endsWith(success)) return undefined;
  const stdout = text.slice(0, -success.length);
  if (stdout !== "" && !stdout.endsWith("\0")) return undefined;
  return { code: 0, stdout, stderr: "", timedOut: false };
}
