/**
 * Waiting shells that start git for a long-running process (the controller), so that its git commands
 * cost it no process start of its own: starting a process from the controller forks the whole controller
 * (5.5–7.5 ms of its CPU per spawn at 100–150 MB, on the 2-core VM this was measured on), against
 * 0.6–0.8 ms to hand the same git to an idle /bin/sh.
 *
 * No files: a request is shell text written on the shell's stdin pipe. git's stdout and stderr are pipes
 * of the request's own, each copied by a `cat` onto the shell's stdout or stderr; its exit status comes
 * back through a third descriptor. Only once both cats ended (every writer of git's pipes closed them:
 * git and anything it left behind, as execFile waits for) does the shell write the request's marker (a
 * `~` and 128 random bits, new for each request, known only to this process and the shell) on stderr,
 * then the marker and the status on stdout (a command that can start no other program skips the cats:
 * git alone writes, and has ended). Output is what came before the marker: git cannot write the
 * marker without knowing it, and the marker's first character occurs nowhere else in the marker, so
 * output that ends with part of it cannot hide the real one. A sandboxed maker cannot reach the pipes:
 * bubblewrap gives it its own PID namespace and /proc (sandbox-plan.ts), in which the shells do not
 * exist.
 *
 * Each request runs in a subshell that starts from an empty environment (the shell's own is empty) and
 * exports every variable of the command's environment, so git gets exactly what Node's spawn would have
 * given it (in another order). What a shell cannot state exactly is not handed over (`undefined`: the
 * caller starts git itself): a name it cannot export, a variable the shell manages or reads itself, a
 * NUL anywhere, a relative folder, input that holds a NUL or is large, arguments and environment too
 * large for one request. Only dash is used (/bin/sh here): bash adds `_` and `SHLVL` to every command's
 * environment. A git that cannot be started (dash's `exec: ...` message with status 126 or 127) throws,
 * as spawn does; a git killed by signal n answers 128 + n, as git.ts reports one it started itself.
 *
 * Each shell is the leader of its own process group, which git joins: a timeout kills the group (the
 * shell, the cats, git and anything git started) and the shell is replaced. A shell whose controller
 * dies reads end-of-file on its stdin and exits once its current git ends. A shell's first act on a
 * request is to acknowledge it (`ack`, before anything that could start git): a shell that ended
 * without acknowledging the request (killed while idle, even before this process learnt of it) never
 * ran its git, and the request goes to another shell, or to the caller; one that ended after fails the
 * request, whose git may have run.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import { basename, isAbsolute } from "node:path";
import { realpathSync } from "../files/node-fs.ts";
import { type ShellAnswer, type ShellRequest, setShellRunner, shellSettings } from "./git.ts";

/**
 * Shells started by `useGitShells`: two, as a run's first steps overlap two git commands (the loop's git
 * created while the branch is made, the two checkouts written at once); a second started there forks a
 * controller that has loaded its modules by then (2–3 ms of its CPU, on the way to the maker).
 */
const initialShells = 2;
/** Concurrent requests served by shells; more start git from the process itself. */
const maximumShells = 4;
/** Larger input is written to git by the process itself. */
const maximumInputBytes = 256 * 1024;
/**
 * Larger arguments and environment together go to the process itself, which fails as spawn does when
 * they pass the system's limits (E2BIG), and which writes no large request text through a pipe.
 */
const maximumRequestBytes = 96 * 1024;
/** How dash says that it could not start git (`/bin/sh: 1: exec: /usr/bin/git: Permission denied`). */
const execFailure = /^\/bin\/sh: \d+: exec: (.*)/;
/** The first bytes on stdout of every request: the shell read it and git has not started yet. */
const ack = Buffer.from("+\n");

/** Names a POSIX shell can export. */
const shellName = /^[A-Za-z_][A-Za-z0-9_]*$/;
/** The prefix of the request's and the scripts' own variables (`lw_git`, `lw_kept`): never exported. */
const ownPrefix = "lw_";
/** Variables dash sets or updates itself while it runs: never stated through it. */
const managedByShell = new Set(["PPID", "LINENO", "OPTIND", "PS1", "PS2", "PS4"]);

/** `value` single-quoted for the shell: nothing inside is expanded, a `'` is closed, escaped, reopened. */
export function shellQuote(value: string): string {
  return `'${value.replaceAll("'", `'\\''`)}'`;
}

interface Shell {
  child: ChildProcess;
  /** The request in progress: its marker and what arrived so far. */
  current?: Exchange;
  ended: boolean;
  /** Why it ended, once it did. */
  endedBy?: string;
  /** Killed, or about to be: never given another request. */
  killed: boolean;
}

interface Exchange {
  marker: Buffer;
  /** The shell acknowledged the request (`ack` arrived): its git may have run. */
  acknowledged: boolean;
  /** Output beyond this, on either pipe, fails the request (as execFile's maxBuffer). */
  limit: number;
  stdout: Stream;
  stderr: Stream;
  finish: (outcome: { status: string } | { error: Error }) => void;
}

/** One pipe's bytes for a request, and where the marker was found in them. */
interface Stream {
  chunks: Buffer[];
  length: number;
  /** Bytes at the start that are not git's (the acknowledgement on stdout). */
  start: number;
  markerAt: number;
  /** The text after the marker up to the newline, once it arrived. */
  trailer?: string;
}

const shells: Shell[] = [];
const idle: Shell[] = [];
let enabled = false;
let disabled = false;

/**
 * From now on, this process's git commands go through waiting shells (see above), `initialShells` of
 * them started now, while the process is small. For long-running processes only: a one-shot command
 * would pay for shells it never uses. Idempotent; does nothing where /bin/sh is not dash.
 */
export function useGitShells(): void {
  if (enabled) setShellRunner(runInShell);
  if (enabled || disabled) return;
  try {
    if (basename(realpathSync("/bin/sh")) !== "dash") disabled = true;
  } catch {
    disabled = true;
  }
  if (disabled) return;
  enabled = true;
  // Idle shells end on their own (end of input); a git still running when this process exits (a step
  // abandoned after a cancel) is killed with its shell rather than left behind.
  process.once("exit", () => {
    for (const shell of shells) if (shell.current) killGroup(shell);
  });
  for (let count = 0; count < initialShells; count++) {
    const shell = startShell();
    if (shell) idle.push(shell);
  }
  setShellRunner(runInShell);
}

/** The pids of the shells alive now (for tests). */
export function gitShellPids(): number[] {
  return shells.map((shell) => shell.child.pid ?? 0);
}

async function runInShell(request: ShellRequest): Promise<ShellAnswer | undefined> {
  if (disabled) return undefined;
  const marker = randomBytes(16).toString("hex");
  const text = requestText(request, `~${marker}`);
  if (text === undefined) return undefined;
  // A shell that ended without acknowledging the request is dropped; the request then goes to another
  // (at most three tries).
  for (let attempt = 0; attempt < 3; attempt++) {
    const shell = idle.pop() ?? (shells.length < maximumShells ? startShell() : undefined);
    if (!shell) return undefined;
    const answer = await exchangeWith(shell, request, text, Buffer.from(`~${marker}`));
    if (answer !== "unsent") return answer;
  }
  return undefined;
}

/** The shell's answer to one request; "unsent" when the shell ended without acknowledging it. */
async function exchangeWith(
  shell: Shell,
  request: ShellRequest,
  text: string,
  marker: Buffer,
): Promise<ShellAnswer | "unsent"> {
  let timer: NodeJS.Timeout | undefined;
  try {
    const { exchange, done } = ask(shell, text, marker, request.maximumOutputBytes);
    let timedOut = false;
    if (request.timeoutMs > 0)
      timer = setTimeout(() => {
        timedOut = true;
        killGroup(shell);
      }, request.timeoutMs);
    const outcome = await done;
    const stdout = before(exchange.stdout);
    const stderr = before(exchange.stderr).toString("utf8");
    if (timedOut) return { code: -1, stdout: decode(stdout, request), stderr, timedOut: true };
    if ("error" in outcome) {
      if (!exchange.acknowledged) return "unsent";
      throw outcome.error;
    }
    if (outcome.status === "nocwd") return { missingDirectory: true };
    const code = Number(outcome.status);
    if (!/^\d+$/.test(outcome.status))
      throw new Error(`the git shell answered '${outcome.status.slice(0, 40)}'`);
    const cannotStart = (code === 126 || code === 127) && execFailure.exec(stderr);
    if (cannotStart) throw new Error(`git cannot be started: ${cannotStart[1]}`);
    return { code, stdout: decode(stdout, request), stderr, timedOut: false };
  } finally {
    if (timer) clearTimeout(timer);
    if (!shell.ended && !shell.killed) idle.push(shell);
  }
}

function decode(bytes: Buffer, request: ShellRequest): string | Buffer {
  return request.encoding === "buffer" ? bytes : bytes.toString("utf8");
}

/**
 * The request's text: `cd` to its folder (answering `nocwd` when that fails), then in a subshell the
 * environment, the parameters (`set --`) and the script, with stdin the input (a here-document when it
 * ends a line, else a pipe from printf) or /dev/null, its stdout
 * and stderr fresh pipes each copied by a `cat` onto the shell's own (descriptor 5 holds the shell's
 * stdout inside `$(...)`, whose stdout carries the status, on descriptor 3); the shell that waits for
 * the subshell has its stderr on /dev/null (dash's `Killed` is not git's output). A request whose git
 * starts no other program (`startsNoProgram`) writes on the shell's pipes directly: once git ended,
 * nothing else holds them, and two cats cost more than git itself. Then the marker on
 * stderr, and the marker and the status on stdout. Undefined when it cannot be stated exactly.
 */
function requestText(request: ShellRequest, marker: string): string | undefined {
  const strings = [request.cwd, request.executable, request.script, request.input, ...request.parameters];
  if (!isAbsolute(request.cwd) || strings.some((value) => value.includes("\0"))) return undefined;
  if (Buffer.byteLength(request.input) > maximumInputBytes) return undefined;
  let size = 0;
  const exports: string[] = [];
  for (const [name, value] of Object.entries(request.env)) {
    if (value === undefined) continue;
    if (!shellName.test(name) || name.startsWith(ownPrefix)) return undefined;
    if (shellSettings.has(name) || managedByShell.has(name)) return undefined;
    if (value.includes("\0")) return undefined;
    size += name.length + Buffer.byteLength(value) + 2;
    exports.push(`export ${name}=${shellQuote(value)}`);
  }
  for (const parameter of request.parameters) size += Buffer.byteLength(parameter) + 1;
  if (size > maximumRequestBytes) return undefined;
  // Input that ends a line is a here-document (delimited by the marker, which no input holds: dash
  // writes it into a pipe itself); other input comes through a pipe from printf, a process more.
  const inputRedirection =
    request.input === "" ? "</dev/null " : request.input.endsWith("\n") ? `<<'${marker}' ` : "";
  const subshell = [
    "(",
    // The physical folder `cd -P` made current, for a script that needs it (`gitSequence`), then
    // PWD and OLDPWD, which cd exported in the shell, as the command's environment says they are.
    "lw_pwd=$PWD",
    "unset PWD OLDPWD",
    ...exports,
    `set -- ${request.parameters.map(shellQuote).join(" ")}`,
    `lw_git=${shellQuote(request.executable)}`,
    request.script,
    `) ${inputRedirection}2>&6 3>&- 6>&-`,
    ...(inputRedirection.startsWith("<<") ? [`${request.input}${marker}`] : []),
  ].join("\n");
  const git =
    request.input === "" || inputRedirection !== ""
      ? subshell
      : `printf '%s' ${shellQuote(request.input)} | ${subshell}`;
  // A git that starts no other program leaves no writer behind: its output on the shell's own pipes.
  const run = request.startsNoProgram
    ? ["{", git, "lw_status=$?; } 6>&2 2>/dev/null"]
    : [
        "{ lw_status=$(exec 3>&1; { { {",
        git,
        "echo $? >&3; } 6>&1 1>&4 2>/dev/null 4>&- | cat >&2 3>&- 4>&-; } 4>&1 5>&- | cat >&5 3>&-; }); } 5>&1",
      ];
  return [
    // Its own command, run before the next is even parsed.
    `printf '+\\n'`,
    `if cd -P -- ${shellQuote(request.cwd)} 2>/dev/null; then`,
    ...run,
    "else lw_status=nocwd; fi",
    `printf '%s\\n' '${marker}' >&2`,
    `printf '%s %s\\n' '${marker}' "$lw_status"`,
    "",
  ].join("\n");
}

function startShell(): Shell | undefined {
  let child: ChildProcess;
  try {
    child = spawn("/bin/sh", [], {
      cwd: "/",
      env: {},
      stdio: ["pipe", "pipe", "pipe"],
      // Its own process group, so that a timeout can kill git with it.
      detached: true,
    });
  } catch {
    disabled = true;
    return undefined;
  }
  const shell: Shell = { child, ended: false, killed: false };
  shells.push(shell);
  // Ended: given no more requests. The request in progress fails only once stdout and stderr closed
  // ("close"), so that whether the shell acknowledged it is known.
  const end = (why: string) => {
    if (shell.ended) return;
    shell.ended = true;
    shell.endedBy = why;
    shells.splice(shells.indexOf(shell), 1);
    const at = idle.indexOf(shell);
    if (at >= 0) idle.splice(at, 1);
    shell.child.stdin?.destroy();
  };
  const fail = () => shell.current?.finish({ error: new Error(`the git shell ended (${shell.endedBy})`) });
  child.on("error", (error) => {
    // /bin/sh cannot be started here: git is started as before from now on.
    disabled = true;
    end(error.message);
    fail();
  });
  child.on("exit", (code, signal) => end(signal ?? `exit ${code}`));
  child.on("close", (code, signal) => {
    end(signal ?? `exit ${code}`);
    fail();
  });
  child.stdin?.on("error", () => end("its input closed"));
  child.stdout?.on("data", (chunk: Buffer) => received(shell, "stdout", chunk));
  child.stderr?.on("data", (chunk: Buffer) => received(shell, "stderr", chunk));
  setReferenced(shell, false);
  return shell;
}

/** Sends `text`; `done` resolves once both markers arrived (or the shell ended). */
function ask(
  shell: Shell,
  text: string,
  marker: Buffer,
  maximumOutputBytes: number,
): { exchange: Exchange; done: Promise<{ status: string } | { error: Error }> } {
  const stdout: Stream = { chunks: [], length: 0, start: ack.length, markerAt: -1 };
  const stderr: Stream = { chunks: [], length: 0, start: 0, markerAt: -1 };
  let exchange!: Exchange;
  const done = new Promise<{ status: string } | { error: Error }>((resolve) => {
    exchange = shell.current = {
      marker,
      acknowledged: false,
      limit: maximumOutputBytes,
      stdout,
      stderr,
      finish: (outcome) => {
        shell.current = undefined;
        setReferenced(shell, false);
        resolve(outcome);
      },
    };
  });
  setReferenced(shell, true);
  // A write that fails (the shell is gone) is reported by the shell's events.
  const input = shell.child.stdin;
  if (input && !input.destroyed) input.write(text, () => {});
  return { exchange, done };
}

function received(shell: Shell, name: "stdout" | "stderr", chunk: Buffer): void {
  const exchange = shell.current;
  if (!exchange) return;
  const stream = exchange[name];
  const previousLength = stream.length;
  stream.chunks.push(chunk);
  stream.length += chunk.length;
  if (name === "stdout" && !exchange.acknowledged && stream.length >= ack.length) {
    // Something else answered: whether git ran is unknown, so the request fails (never retried).
    exchange.acknowledged = true;
    if (!tail(stream, stream.length).subarray(0, ack.length).equals(ack)) {
      exchange.finish({ error: new Error("the git shell answered without acknowledging the request") });
      killGroup(shell);
      return;
    }
  }
  const marker = exchange.marker;
  if (stream.markerAt < 0) {
    // Search the new bytes and the few before them that a marker could start in.
    const from = Math.max(stream.start, previousLength - marker.length + 1);
    const found = from < stream.length ? tail(stream, stream.length - from).indexOf(marker) : -1;
    if (found >= 0) stream.markerAt = from + found;
  }
  if (stream.markerAt >= 0 && stream.trailer === undefined) {
    const after = tail(stream, stream.length - stream.markerAt - marker.length);
    const newline = after.indexOf(10);
    if (newline >= 0) stream.trailer = after.subarray(0, newline).toString("utf8").trim();
  }
  // As execFile's maxBuffer: git's own bytes (before the marker, which may arrive in the same read).
  if ((stream.markerAt < 0 ? stream.length : stream.markerAt) - stream.start > exchange.limit) {
    exchange.finish({ error: new Error(`git's ${name} passed ${exchange.limit} bytes`) });
    killGroup(shell);
    return;
  }
  if (exchange.stdout.trailer !== undefined && exchange.stderr.trailer !== undefined)
    exchange.finish({ status: exchange.stdout.trailer });
}

/** The last `count` bytes of what the stream received. */
function tail(stream: Stream, count: number): Buffer {
  const parts: Buffer[] = [];
  let needed = count;
  for (let index = stream.chunks.length - 1; index >= 0 && needed > 0; index--) {
    const chunk = stream.chunks[index];
    parts.unshift(chunk.length <= needed ? chunk : chunk.subarray(chunk.length - needed));
    needed -= chunk.length;
  }
  return parts.length === 1 ? parts[0] : Buffer.concat(parts);
}

/** What the stream received before its marker (all of it when none came). */
function before(stream: Stream): Buffer {
  const all = Buffer.concat(stream.chunks, stream.length);
  return all.subarray(
    Math.min(stream.start, all.length),
    stream.markerAt >= 0 ? stream.markerAt : all.length,
  );
}

/** Kills the shell, git and whatever git started (they share the shell's process group). */
function killGroup(shell: Shell): void {
  const pid = shell.child.pid;
  shell.killed = true;
  if (pid === undefined || shell.ended) return;
  try {
    process.kill(-pid, "SIGKILL");
  } catch {
    shell.child.kill("SIGKILL");
  }
}

/** A shell keeps this process alive only while it runs a request. */
function setReferenced(shell: Shell, referenced: boolean): void {
  for (const handle of [shell.child, shell.child.stdin, shell.child.stdout, shell.child.stderr]) {
    const target = handle as { ref?: () => void; unref?: () => void } | null;
    if (referenced) target?.ref?.();
    else target?.unref?.();
  }
}
