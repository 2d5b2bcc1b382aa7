/**
 * Long-lived shells that start git for a long-running process (the controller), so that its git commands
 * cost it no process start of its own. Starting a process from the controller forks the whole controller
 * (its event loop blocked meanwhile): 5.5–7.5 ms of its CPU per spawn on the 2-core VM this was measured
 * on, against 0.6–0.8 ms to hand the same `git write-tree` to a waiting /bin/sh (a tiny process, cheap to
 * fork), 30 runs each, in a node process holding 150 MB (/tmp measurement script, `process.cpuUsage`).
 * An iteration runs six git processes or shell sequences; a service runs many loops.
 *
 * Each shell runs one request at a time, in the foreground: `cd` to the command's folder, then in a
 * subshell the environment's differences from the shell's own (`unset`, `export`), the arguments as
 * positional parameters (`set --`), and the script, with stdin, stdout and stderr redirected to files of a
 * private folder; the shell answers with one line, the exit code. Arguments and values reach the shell
 * single-quoted, the one quoting with no expansion of any kind inside: they are never read as code. A
 * request finds an idle shell or starts one (at most `maximumShells`); beyond that, and whenever something
 * cannot be handed over (a variable name the shell cannot export), the caller starts git itself as before.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import type { Readable } from "node:stream";
import { mkdtempSync, readFileSync, rmSync, statSync, unlinkSync, writeFileSync } from "../files/node-fs.ts";
import {
  plainShellEnvironment,
  type ShellAnswer,
  type ShellRequest,
  setShellRunner,
  shellSettings,
} from "./git.ts";

/** Concurrent requests served by shells; more start git from the process itself. */
const maximumShells = 4;

/** Names a POSIX shell can export or unset. */
const shellName = /^[A-Za-z_][A-Za-z0-9_]*$/;

/** `value` single-quoted for the shell: nothing inside is expanded, a `'` is closed, escaped, reopened. */
export function shellQuote(value: string): string {
  return `'${value.replaceAll("'", `'\\''`)}'`;
}

interface Shell {
  child: ChildProcess;
  /** The environment it started with; each request states only its differences. */
  environment: NodeJS.ProcessEnv;
  /** Resolves the request in progress with its answer line, or rejects when the shell ended. */
  answer?: { resolve: (line: string) => void; reject: (error: Error) => void };
  buffered: string;
  ended: boolean;
}

let folder: string | undefined;
let shells: Shell[] = [];
const idle: Shell[] = [];
let requests = 0;
let disabled = false;

/**
 * From now on, this process's git commands without a time limit go through the shells (see above). For
 * long-running processes only: a short command would pay a shell's start for nothing. Idempotent.
 */
export function useGitShells(): void {
  if (folder !== undefined || disabled) return;
  try {
    folder = mkdtempSync(join(tmpdir(), "loopwright-git-"));
  } catch {
    disabled = true;
    return;
  }
  const made = folder;
  process.once("exit", () => {
    for (const shell of shells) shell.child.kill("SIGKILL");
    rmSync(made, { recursive: true, force: true });
  });
  setShellRunner(runInShell);
}

async function runInShell(request: ShellRequest): Promise<ShellAnswer | undefined> {
  if (disabled || folder === undefined) return undefined;
  const shell = idle.pop() ?? (shells.length < maximumShells ? startShell(request.env) : undefined);
  if (!shell) return undefined;
  const text = requestText(shell, request, folder, ++requests);
  if (text === undefined) {
    idle.push(shell);
    return undefined;
  }
  const id = requests;
  const output = join(folder, `${id}.out`);
  const errors = join(folder, `${id}.err`);
  const input = join(folder, `${id}.in`);
  try {
    if (request.input !== "") writeFileSync(input, request.input);
    const line = await ask(shell, text);
    if (line === "cwd") return { missingDirectory: true };
    const code = Number(line);
    if (!Number.isInteger(code)) throw new Error(`the git shell answered '${line.slice(0, 80)}'`);
    if (statSync(output).size > request.maximumOutputBytes)
      throw new Error(`git's output passed ${request.maximumOutputBytes} bytes`);
    const stdout = request.encoding === "buffer" ? readFileSync(output) : readFileSync(output, "utf8");
    return { code, stdout, stderr: readFileSync(errors, "utf8") };
  } finally {
    for (const file of [output, errors, input]) {
      try {
        unlinkSync(file);
      } catch {
        // Not written (no input, or the shell never got that far).
      }
    }
    if (!shell.ended) idle.push(shell);
  }
}

/**
 * The request's text: one `if` the shell runs in the foreground, answering `cwd` when the folder is
 * missing and the script's exit code otherwise. Undefined when the environment cannot be stated.
 */
function requestText(shell: Shell, request: ShellRequest, folder: string, id: number): string | undefined {
  const changes: string[] = [];
  for (const name of Object.keys(shell.environment)) {
    if (request.env[name] !== undefined) continue;
    if (!shellName.test(name)) return undefined;
    changes.push(`unset ${name}`);
  }
  for (const [name, value] of Object.entries(request.env)) {
    if (value === undefined || shell.environment[name] === value) continue;
    // What could change how the shell itself runs is never set in it: such a request starts git as before.
    if (!shellName.test(name) || shellSettings.has(name)) return undefined;
    changes.push(`export ${name}=${shellQuote(value)}`);
  }
  const input = request.input === "" ? "/dev/null" : join(folder, `${id}.in`);
  const inner = [
    ...changes,
    `set -- ${request.parameters.map(shellQuote).join(" ")}`,
    `lw_git=${shellQuote(request.executable)}`,
    request.script,
  ].join("\n");
  return [
    `if cd ${shellQuote(resolve(request.cwd))} 2>/dev/null; then`,
    `(\n${inner}\n) <${shellQuote(input)} >${shellQuote(join(folder, `${id}.out`))} 2>${shellQuote(join(folder, `${id}.err`))}`,
    `printf '%s\\n' "$?"`,
    "else printf 'cwd\\n'; fi",
    "",
  ].join("\n");
}

function startShell(environment: NodeJS.ProcessEnv): Shell | undefined {
  let child: ChildProcess;
  try {
    environment = plainShellEnvironment(environment);
    child = spawn("/bin/sh", [], { cwd: "/", env: environment, stdio: ["pipe", "pipe", "ignore"] });
  } catch {
    disabled = true;
    return undefined;
  }
  const shell: Shell = { child, environment: { ...environment }, buffered: "", ended: false };
  shells.push(shell);
  const end = (why: string) => {
    if (shell.ended) return;
    shell.ended = true;
    shells = shells.filter((other) => other !== shell);
    const at = idle.indexOf(shell);
    if (at >= 0) idle.splice(at, 1);
    shell.answer?.reject(new Error(`the git shell ended (${why})`));
    shell.answer = undefined;
  };
  child.on("error", (error) => {
    // /bin/sh cannot be started here: git is started as before from now on.
    disabled = true;
    end(error.message);
  });
  child.on("exit", (code, signal) => end(signal ?? `exit ${code}`));
  child.stdin?.on("error", () => end("its input closed"));
  child.stdout?.setEncoding("utf8");
  child.stdout?.on("data", (chunk: string) => {
    shell.buffered += chunk;
    const newline = shell.buffered.indexOf("\n");
    if (newline < 0) return;
    const line = shell.buffered.slice(0, newline);
    shell.buffered = shell.buffered.slice(newline + 1);
    const answer = shell.answer;
    shell.answer = undefined;
    answer?.resolve(line);
  });
  setReferenced(shell, false);
  return shell;
}

/** Sends `text`, resolves with the answer line; the shell keeps this process alive only meanwhile. */
function ask(shell: Shell, text: string): Promise<string> {
  return new Promise<string>((resolve, reject) => {
    shell.answer = { resolve, reject };
    setReferenced(shell, true);
    shell.child.stdin?.write(text);
  }).finally(() => setReferenced(shell, false));
}

function setReferenced(shell: Shell, referenced: boolean): void {
  for (const handle of [shell.child, shell.child.stdin, shell.child.stdout] as (
    | ChildProcess
    | Readable
    | NodeJS.WritableStream
    | null
  )[]) {
    const target = handle as { ref?: () => void; unref?: () => void } | null;
    if (referenced) target?.ref?.();
    else target?.unref?.();
  }
}
