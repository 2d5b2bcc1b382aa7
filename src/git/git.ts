/**
 * The one way loopwright runs git: `execFile` (or, in a long-running process that asked for them, a
 * waiting shell that starts git by its absolute path with exactly the same environment: git-shells.ts),
 * with prompts off and messages in the C locale so they can be parsed. Every other file of `src/git` goes
 * through `git` or `gitResult`.
 */

import type { ChildProcess, ExecFileOptions } from "node:child_process";
import { delimiter as delimiterOfPath, isAbsolute } from "node:path";
import { appendFileSync } from "../files/node-fs.ts";
import { findExecutable } from "../process/find-executable.ts";
import { relievingPlantedFifos } from "./planted-fifos.ts";

/**
 * `util.promisify(execFile)` without node:util, and node:child_process loaded on the first git command
 * rather than with this module: together several milliseconds of start-up for every hook and read-only
 * command that imports git.ts and may never run git. Resolves with the output, rejects with the error
 * carrying `stdout` and `stderr`; also rejects (with no `child`) when the process cannot even be
 * created, which execFile throws rather than reports (E2BIG: arguments too large).
 */
function execFileAsync<Output extends string | Buffer>(
  file: string,
  args: readonly string[],
  options: ExecFileOptions & { encoding: Output extends string ? "utf8" : "buffer" },
): Promise<{ stdout: Output; stderr: Output }> & { child: ChildProcess | undefined } {
  let child: ChildProcess | undefined;
  const pending = new Promise<{ stdout: Output; stderr: Output }>((resolve, reject) => {
    const { execFile } = process.getBuiltinModule("node:child_process");
    child = execFile(file, args, options, (error, stdout, stderr) => {
      const output = { stdout: stdout as Output, stderr: stderr as Output };
      if (error) reject(Object.assign(error, output));
      else resolve(output);
    });
  });
  return Object.assign(pending, { child });
}

/** The exit code of a git that `signal` killed, as a shell reports it (128 + its number); else -1. */
function signalCode(signal: NodeJS.Signals | null | undefined): number {
  const number = signal ? process.getBuiltinModule("node:os").constants.signals[signal] : undefined;
  return number === undefined ? -1 : 128 + number;
}

/**
 * Subcommands that may reach another machine and so run helpers (ssh, a credential helper, a remote
 * helper) that can outlive git: always started from this process, never through a waiting shell.
 */
const networkSubcommands: ReadonlySet<string> = new Set([
  "push",
  "fetch",
  "pull",
  "ls-remote",
  "clone",
  "remote",
  "submodule",
  "archive",
  "credential",
]);

/** Large enough for the diff of a big iteration; callers bound what they keep. */
const maxOutputBytes = 256 * 1024 * 1024;

/** A script for a waiting shell (git-shells.ts): `"$lw_git"` names git, `"$@"` the parameters. */
export interface ShellRequest {
  script: string;
  parameters: readonly string[];
  /** git's absolute path. */
  executable: string;
  cwd: string;
  /** The whole environment git runs with. */
  env: NodeJS.ProcessEnv;
  /** Its stdin ("" for an empty one). */
  input: string;
  encoding: "utf8" | "buffer";
  maximumOutputBytes: number;
  /** Kill git (and what it started) after this many milliseconds; 0: no limit. */
  timeoutMs: number;
  /**
   * Every git command of the script starts no other program (`startsNoProgram`, or
   * `startsNoProgramWithoutPromisor` in a repository without a promisor remote): once they ended, no
   * process is left that could still write their output.
   */
  startsNoProgram: boolean;
}

/** What the script did, or that `cwd` is missing. */
export type ShellAnswer =
  | { code: number; stdout: string | Buffer; stderr: string; timedOut: boolean; missingDirectory?: undefined }
  | { missingDirectory: true };

/**
 * Hands a request to a waiting shell; undefined when none can take it (the caller starts git itself).
 * Set by `useGitShells` (git-shells.ts) in long-running processes; unset, every command starts its own.
 */
type ShellRunner = (request: ShellRequest) => Promise<ShellAnswer | undefined>;
let shellRunner: ShellRunner | undefined;

export function setShellRunner(runner: ShellRunner | undefined): void {
  shellRunner = runner;
}

/** A git script through a waiting shell when one can take it; else undefined. */
async function throughShell(
  script: string,
  parameters: readonly string[],
  cwd: string,
  env: NodeJS.ProcessEnv,
  options: {
    input?: string;
    encoding: "utf8" | "buffer";
    timeoutMs?: number;
    commands: readonly (readonly string[])[];
  },
): Promise<{ code: number; stdout: string | Buffer; stderr: string; timedOut: boolean } | undefined> {
  if (!shellRunner) return undefined;
  const executable = gitExecutable(env.PATH);
  if (!isAbsolute(executable)) return undefined;
  const free = options.commands.every((command) => startsNoProgram(command, env));
  const answer = await shellRunner({
    script,
    parameters,
    executable,
    cwd,
    env,
    input: options.input ?? "",
    encoding: options.encoding,
    maximumOutputBytes: maxOutputBytes,
    timeoutMs: options.timeoutMs ?? 0,
    startsNoProgram:
      free ||
      (options.commands.every(
        (command) => startsNoProgram(command, env) || startsNoProgramWithoutPromisor(command, env),
      ) &&
        (await hasNoPromisorRemote(cwd, env))),
  }).catch((error: Error) => {
    throw new Error(`cannot run git in ${cwd}: ${error.message}`);
  });
  if (answer?.missingDirectory)
    throw new Error(`cannot run git in ${cwd}: git is not installed or ${cwd} does not exist`);
  return answer;
}

/**
 * Subcommands that start no other program whatever the configuration, given `neutralisingArguments`
 * (no hooks, no fsmonitor, no pager, no gc): no filter, no diff driver, no signing, no helper.
 */
const programFreeSubcommands: ReadonlySet<string> = new Set([
  "rev-parse",
  "update-ref",
  "symbolic-ref",
  "write-tree",
  "ls-tree",
  "mktree",
  "for-each-ref",
  "show-ref",
  "merge-base",
  "rev-list",
  "cat-file",
  "commit-tree",
]);

/**
 * Subcommands that start a program only where the configuration names one (a filter, diff or merge
 * driver, an external diff given `--ext-diff`), given `neutralisingArguments`: none starts one in a
 * loop's private git directory (`privateConfiguration`), whose configuration only loopwright writes and
 * names no driver. A `.gitattributes` in a checkout may name a driver; without its configuration git
 * runs nothing for it.
 */
const driverOnlySubcommands: ReadonlySet<string> = new Set([
  "add",
  "read-tree",
  "clean",
  "ls-files",
  "update-index",
  "checkout-index",
  "diff-tree",
  "diff-index",
  "diff-files",
]);

/**
 * Whether `env` is that of a loop's private git directory (see loop-repository.ts): no system or
 * global configuration, an explicit GIT_DIR, and no configuration, driver or external diff given by a
 * variable.
 */
function privateConfiguration(env: NodeJS.ProcessEnv): boolean {
  return (
    env.GIT_CONFIG_NOSYSTEM === "1" &&
    env.GIT_CONFIG_GLOBAL === "/dev/null" &&
    env.GIT_DIR !== undefined &&
    env.GIT_CONFIG === undefined &&
    env.GIT_CONFIG_PARAMETERS === undefined &&
    env.GIT_CONFIG_COUNT === undefined &&
    env.GIT_EXTERNAL_DIFF === undefined
  );
}

/**
 * Whether `git <args>`, run with `env`, starts no other program: a subcommand of
 * `programFreeSubcommands`, or of `driverOnlySubcommands` in a private configuration with no setting on
 * its command line but `programFreeSettings`, with none of the options that would start one (`cat-file --filters`/`--textconv`, `commit-tree -S`, `--ext-diff`).
 */
export function startsNoProgram(args: readonly string[], env: NodeJS.ProcessEnv = {}): boolean {
  const subcommand = subcommandOf(args);
  const free =
    programFreeSubcommands.has(subcommand) ||
    (driverOnlySubcommands.has(subcommand) && privateConfiguration(env) && onlyProgramFreeSettings(args));
  if (!free) return false;
  return !args.some((argument) => /^(--filters|--textconv|-S|--gpg-sign|--ext-diff)/.test(argument));
}

/**
 * Settings on a command line that name no program whatever their value: `core.excludesFile` names a
 * file of ignore patterns, which git reads and never runs (the gates' clean sets it to /dev/null).
 */
const programFreeSettings: ReadonlySet<string> = new Set(["core.excludesfile"]);

/**
 * Whether every setting `args` give on the command line (`-c <name>=<value>`) is one of
 * `programFreeSettings` (its name in any case, as git reads it), and none comes from a variable
 * (`--config-env`).
 */
function onlyProgramFreeSettings(args: readonly string[]): boolean {
  for (let index = 0; index < args.length; index++) {
    if (args[index].startsWith("--config-env")) return false;
    if (args[index] !== "-c") continue;
    const setting = args[index + 1] ?? "";
    const name = setting.includes("=") ? setting.slice(0, setting.indexOf("=")) : setting;
    if (!programFreeSettings.has(name.toLowerCase())) return false;
    index++;
  }
  return true;
}

/**
 * Whether `git <args>` starts no other program in a repository without a promisor remote (not a
 * partial clone), whatever its configuration: a `diff-tree` that prints no external diff and converts
 * no text (`--no-ext-diff --no-textconv`), with no setting on its command line but `core.quotePath`
 * and none given by a variable. What is left of the configuration (drivers' `xfuncname`, `binary`,
 * colours, rename limits) changes what it prints, never what it runs; the submodule settings that run
 * a `git diff` in a submodule are the porcelain's, which `diff-tree` does not read. Its only way to
 * start a program is then the lazy fetch of an object missing from a partial clone.
 */
export function startsNoProgramWithoutPromisor(
  args: readonly string[],
  env: NodeJS.ProcessEnv = {},
): boolean {
  if (subcommandOf(args) !== "diff-tree") return false;
  if (!args.includes("--no-ext-diff") || !args.includes("--no-textconv")) return false;
  if (args.some((argument) => /^(--ext-diff|--textconv)/.test(argument))) return false;
  for (let index = 0; index < args.length; index++)
    if (args[index] === "-c" && !/^core\.quotePath=/i.test(args[index + 1] ?? "")) return false;
  return (
    env.GIT_CONFIG_PARAMETERS === undefined &&
    env.GIT_CONFIG_COUNT === undefined &&
    env.GIT_CONFIG === undefined &&
    env.GIT_EXTERNAL_DIFF === undefined
  );
}

/**
 * Whether the repository at `cwd`, with `env`, has no promisor remote (`extensions.partialClone`, or a
 * remote with `promisor` set): asked of git once per process, folder and configuration variables (a
 * repository made a partial clone while a loop runs is not seen until the next run). Any doubt (git
 * fails, prints anything) is false.
 */
function hasNoPromisorRemote(cwd: string, env: NodeJS.ProcessEnv): Promise<boolean> {
  const key = [
    cwd,
    ...Object.entries(env)
      .filter(([name]) => configurationVariable.test(name))
      .sort()
      .flat(),
  ].join("\0");
  let answer = promisorFree.get(key);
  if (!answer) {
    if (promisorFree.size >= 1000) promisorFree.clear();
    // In the request's own environment (every variable of it: this adds none and removes none).
    const same = Object.fromEntries(
      Object.entries(env).filter((entry): entry is [string, string] => entry[1] !== undefined),
    );
    answer = gitResult(
      ["config", "--get-regexp", "^(extensions\\.partialclone|remote\\..*\\.promisor)$"],
      cwd,
      { env: same },
    )
      .then((result) => result.code === 1 && result.stdout === "")
      .catch(() => false);
    promisorFree.set(key, answer);
  }
  return answer;
}

/** Variables that say which configuration git reads. */
const configurationVariable = /^(GIT_|HOME$|XDG_CONFIG_HOME$)/;
const promisorFree = new Map<string, Promise<boolean>>();

/** The script of one git command for a waiting shell. */
const singleCommand = `exec "$lw_git" "$@"`;

/**
 * Inherited variables that would point git at another repository, index or object store (they are
 * set, for example, when loopwright runs inside a git hook). `options.env` may still set them.
 */
export const repositoryLocatingVariables: readonly string[] = [
  "GIT_DIR",
  "GIT_WORK_TREE",
  "GIT_INDEX_FILE",
  "GIT_COMMON_DIR",
  "GIT_OBJECT_DIRECTORY",
  "GIT_ALTERNATE_OBJECT_DIRECTORIES",
  "GIT_NAMESPACE",
  "GIT_PREFIX",
];

/**
 * Leading arguments of EVERY git command loopwright runs: no configuration of any scope may make
 * loopwright's own git run a program. No hooks (any of them: pre-commit, post-checkout,
 * reference-transaction, pre-push...), no file-system monitor, no pager, no attributes file outside
 * the tree, no signing program, no automatic gc or maintenance (their hooks and helpers). External
 * diff drivers and text conversion: every command that prints a patch passes `--no-ext-diff
 * --no-textconv` (an empty `diff.external` here would make such a command fail instead). Filters named
 * by a tree's `.gitattributes` need a `filter.<name>` in some config: commands in loopwright's checkouts
 * run with no system, global or checkout config at all (`checkoutEnvironment` in loop-repository.ts), so
 * no filter exists there.
 */
export const neutralisingArguments: readonly string[] = [
  "-c",
  "core.hooksPath=/dev/null",
  "-c",
  "core.fsmonitor=false",
  "-c",
  "core.pager=cat",
  "-c",
  "core.attributesFile=/dev/null",
  "-c",
  "commit.gpgSign=false",
  "-c",
  "tag.gpgSign=false",
  "-c",
  "gc.auto=0",
  "-c",
  "maintenance.auto=false",
];

export interface GitOptions {
  /** Extra environment, on top of the inherited one. */
  env?: Record<string, string>;
  /** Written to git's standard input; stdin is closed (empty) when absent. */
  input?: string;
  /** Trim trailing whitespace (the final newline) from stdout. Default false: stdout verbatim. */
  trim?: boolean;
  /**
   * Kill git after this many milliseconds and stop waiting for anything it started (ssh). Default 0:
   * no limit.
   */
  timeoutMs?: number;
}

/** What a git command did, for commands whose failure is an answer rather than an error. */
export interface GitResult {
  /**
   * The exit code; 128 + n when git was killed by signal n (as a shell reports it, whether git was
   * started from this process or a waiting shell); -1 when `timeoutMs` ran out (see `timedOut`).
   */
  code: number;
  stdout: string;
  stderr: string;
  /** True when `timeoutMs` ran out and git was killed. */
  timedOut: boolean;
}

/** A git command that failed: git's own message (its first error line) plus the command that failed. */
export class GitError extends Error {
  override name = "GitError";
  readonly args: readonly string[];
  readonly cwd: string;
  readonly code: number;
  readonly stderr: string;
  constructor(args: readonly string[], cwd: string, result: GitResult) {
    const reason = result.timedOut
      ? "timed out"
      : firstErrorLine(result.stderr) || `exit code ${result.code}`;
    super(`${reason} (git ${args.join(" ")} in ${cwd})`);
    this.args = args;
    this.cwd = cwd;
    this.code = result.code;
    this.stderr = result.stderr;
  }
}

/**
 * Runs `git <args>` in `cwd` and returns its stdout (verbatim unless `trim`). Throws `GitError` when git
 * exits non-zero or times out, and a plain `Error` when git cannot be started at all.
 */
export async function git(args: readonly string[], cwd: string, options: GitOptions = {}): Promise<string> {
  const result = await gitResult(args, cwd, options);
  if (result.code !== 0) throw new GitError(args, cwd, result);
  return result.stdout;
}

/**
 * Runs `git <args>` in `cwd` and returns its exit code and output whatever the exit code. Throws only
 * when git cannot be started (not installed, `cwd` missing).
 */
export function gitResult(
  args: readonly string[],
  cwd: string,
  options: GitOptions = {},
): Promise<GitResult> {
  const running = gitResultNow(args, cwd, options);
  // A network command reads no ignore or attributes file of the checkout: a slow one is no planted FIFO.
  return networkSubcommands.has(subcommandOf(args)) ? running : relievingPlantedFifos(cwd, running);
}

async function gitResultNow(args: readonly string[], cwd: string, options: GitOptions): Promise<GitResult> {
  const timeoutMs = options.timeoutMs ?? 0;
  const env = gitEnvironment(options.env);
  const subcommand = subcommandOf(args);
  traceGit(args);
  const answer = networkSubcommands.has(subcommand)
    ? undefined
    : await throughShell(singleCommand, ["--no-pager", ...neutralisingArguments, ...args], cwd, env, {
        input: options.input,
        encoding: "utf8",
        timeoutMs,
        commands: [args],
      });
  if (answer) {
    const stdout = answer.stdout as string;
    return { ...answer, stdout: options.trim ? stdout.trimEnd() : stdout };
  }
  const pending = execFileAsync<string>(
    gitExecutable(env.PATH),
    ["--no-pager", ...neutralisingArguments, ...args],
    {
      cwd,
      env,
      encoding: "utf8",
      maxBuffer: maxOutputBytes,
      windowsHide: true,
    },
  );
  const child = pending.child;
  // git may exit before reading its input; a broken pipe is not our failure.
  child?.stdin?.on("error", () => {});
  child?.stdin?.end(options.input ?? "");
  let timedOut = false;
  const timer =
    timeoutMs > 0 && child
      ? setTimeout(() => {
          timedOut = true;
          child.kill("SIGKILL");
          // A helper git started (ssh) may still hold the pipes open; stop waiting for it.
          child.stdout?.destroy();
          child.stderr?.destroy();
        }, timeoutMs)
      : undefined;
  try {
    const { stdout, stderr } = await pending;
    return { code: 0, stdout: options.trim ? stdout.trimEnd() : stdout, stderr, timedOut: false };
  } catch (error) {
    const failure = error as NodeJS.ErrnoException & {
      stdout?: string;
      stderr?: string;
      code?: unknown;
      signal?: NodeJS.Signals | null;
    };
    if (failure.code === "ENOENT") {
      throw new Error(`cannot run git in ${cwd}: git is not installed or ${cwd} does not exist`);
    }
    if (typeof failure.code === "string") throw new Error(`cannot run git in ${cwd}: ${failure.message}`);
    const stdout = failure.stdout ?? "";
    return {
      code: typeof failure.code === "number" ? failure.code : timedOut ? -1 : signalCode(failure.signal),
      stdout: options.trim ? stdout.trimEnd() : stdout,
      stderr: failure.stderr ?? "",
      timedOut,
    };
  } finally {
    if (timer) clearTimeout(timer);
  }
}

/** How `gitSequence` runs. */
export interface GitSequenceOptions extends Pick<GitOptions, "env" | "trim" | "input"> {
  /**
   * The command whose output is the result (default: the last). Unless it is the last and `onlyIf` is
   * unset, its output is kept for what follows (trailing newlines dropped) and must hold no NUL.
   */
  resultOf?: number;
  /** The commands after `resultOf` run only when its output (trailing newlines aside) is this. */
  onlyIf?: string;
}

/**
 * An argument that stands, in the commands after `resultOf`, for that command's output (trailing
 * newlines aside). No real argument holds a NUL.
 */
export const keptOutput = "\0kept output";

/**
 * `env` without what could change how /bin/sh runs `gitSequence`'s script where it is bash: exported
 * functions (`BASH_FUNC_printf%%` would replace the script's printf), startup files and shell options.
 * git receives the same environment; none of these is git's.
 */
export function plainShellEnvironment(env: NodeJS.ProcessEnv): NodeJS.ProcessEnv {
  const plain: NodeJS.ProcessEnv = {};
  for (const [name, value] of Object.entries(env)) {
    if (name.startsWith("BASH_FUNC_") || shellSettings.has(name)) continue;
    plain[name] = value;
  }
  return plain;
}

export const shellSettings: ReadonlySet<string> = new Set([
  "ENV",
  "BASH_ENV",
  "SHELLOPTS",
  "BASHOPTS",
  "POSIXLY_CORRECT",
  "IFS",
  "CDPATH",
]);

/**
 * Runs several git commands in `cwd`, one after the other, each only if the one before succeeded, and
 * returns the output of command `resultOf` (the last by default; the others' is discarded); throws
 * `GitError` naming the whole sequence when one fails. `input` is every command's stdin (for the one
 * that reads it). One process is started from here (`/bin/sh`, which starts each git by its absolute
 * path): starting a process from a large process such as this one costs several times what it costs
 * from a shell. The arguments reach git as they are: the script only names them (`"${3}"`), never
 * holds them, so nothing in them is read by the shell. Each git command counts in the trace (those
 * `onlyIf` skips too).
 */
export function gitSequence(
  commands: readonly (readonly string[])[],
  cwd: string,
  options: GitSequenceOptions = {},
): Promise<string> {
  return relievingPlantedFifos(cwd, gitSequenceNow(commands, cwd, options));
}

async function gitSequenceNow(
  commands: readonly (readonly string[])[],
  cwd: string,
  options: GitSequenceOptions,
): Promise<string> {
  const env = gitEnvironment(options.env);
  const executable = gitExecutable(env.PATH);
  const resultOf = options.resultOf ?? commands.length - 1;
  // One command, or no git found by an absolute path (the shell would search PATH): one process each.
  if (commands.length <= 1 || !isAbsolute(executable)) {
    let kept: string | undefined;
    for (const [index, command] of commands.entries()) {
      const value = kept?.replace(/\n+$/, "");
      const args = command.map((argument) => (argument === keptOutput ? (value ?? "") : argument));
      const output = await git(args, cwd, options);
      if (index !== resultOf) continue;
      kept = output;
      if (options.onlyIf !== undefined && output.replace(/\n+$/, "") !== options.onlyIf) break;
    }
    return kept ?? "";
  }
  const captured = resultOf !== commands.length - 1 || options.onlyIf !== undefined;
  const parameters: string[] = [];
  const name = (value: string) => {
    parameters.push(value);
    return `"\${${parameters.length}}"`;
  };
  const last = commands.length - 1;
  const lines = commands.map((command, index) => {
    const names = ["--no-pager", ...neutralisingArguments, ...command]
      .map((argument) => (index > resultOf && argument === keptOutput ? `"$lw_kept"` : name(argument)))
      .join(" ");
    // The last command is the script's last (its status is the script's): the shell starts it in its
    // own place (exec), one process fewer.
    if (index === last && index !== resultOf) return `"$lw_git" ${names} >/dev/null`;
    if (index !== resultOf) return `"$lw_git" ${names} >/dev/null || exit`;
    // The last command's output, when nothing needs it kept, is passed on as it is (NULs included).
    if (!captured) return `"$lw_git" ${names}`;
    // Kept without its trailing newlines (and never with a NUL: a shell variable cannot hold one),
    // printed at once: a command after it that fails fails the sequence, whatever was printed.
    const kept = `lw_kept=$("$lw_git" ${names}) || exit`;
    const print = `printf '%s\\n' "$lw_kept"`;
    if (options.onlyIf === undefined) return `${kept}\n${print}`;
    return `${kept}\n[ "$lw_kept" = ${name(options.onlyIf)} ] || { ${print}; exit 0; }\n${print}`;
  });
  // What dash started from this process exports: the inherited PWD when it names this folder, else the
  // physical path (a no-op there; a waiting shell exports the environment's PWD as it is, and names the
  // physical path, which its `cd -P` found, in `lw_pwd`: no process to ask `pwd -P`).
  lines.unshift(
    `{ [ "\${PWD#/}" != "$PWD" ] && [ "$PWD" -ef . ]; } 2>/dev/null || PWD=\${lw_pwd:-$(pwd -P)}; export PWD`,
  );
  for (const command of commands) traceGit(command);
  const args = commands.flatMap((command, index) => (index === 0 ? command : ["&&", "git", ...command]));
  const shellEnv = plainShellEnvironment(env);
  const answer = await throughShell(lines.join("\n"), parameters, cwd, shellEnv, {
    input: options.input,
    encoding: "utf8",
    commands,
  });
  if (answer) {
    const stdout = answer.stdout as string;
    if (answer.code !== 0) throw new GitError(args, cwd, { ...answer, stdout });
    return options.trim ? stdout.trimEnd() : stdout;
  }
  const script = `lw_git=$0 lw_pwd=\n${lines.join("\n")}`;
  const pending = execFileAsync<string>("/bin/sh", ["-c", script, executable, ...parameters], {
    cwd,
    env: shellEnv,
    encoding: "utf8",
    maxBuffer: maxOutputBytes,
    windowsHide: true,
  });
  pending.child?.stdin?.on("error", () => {});
  pending.child?.stdin?.end(options.input ?? "");
  try {
    const { stdout } = await pending;
    return options.trim ? stdout.trimEnd() : stdout;
  } catch (error) {
    const failure = error as NodeJS.ErrnoException & { stdout?: string; stderr?: string; code?: unknown };
    if (failure.code === "ENOENT") {
      throw new Error(`cannot run git in ${cwd}: git is not installed or ${cwd} does not exist`);
    }
    if (typeof failure.code !== "number") throw new Error(`cannot run git in ${cwd}: ${failure.message}`);
    throw new GitError(args, cwd, {
      code: failure.code,
      stdout: failure.stdout ?? "",
      stderr: failure.stderr ?? "",
      timedOut: false,
    });
  }
}

/**
 * The absolute path of the `git` that PATH names, looked up once per process and PATH value: spawning
 * a bare `git` makes the child try every PATH folder before git's own (seven failed `execve` here, per
 * command, while node waits). Only absolute PATH folders count, so a `git` planted in the checkout a
 * command runs in is never picked through a relative PATH entry (`.`). Without one, the bare name is
 * spawned and fails as before ("git is not installed").
 */
const gitByPath = new Map<string, string>();

export function gitExecutable(path: string | undefined): string {
  const key = path ?? "";
  let found = gitByPath.get(key);
  if (found === undefined) {
    const absoluteFolders = key
      .split(delimiterOfPath)
      .filter((folder) => isAbsolute(folder))
      .join(delimiterOfPath);
    found = findExecutable("git", { PATH: absoluteFolders });
    if (found === undefined) return "git";
    gitByPath.set(key, found);
  }
  return found;
}

/**
 * LOOPWRIGHT_GIT_TRACE=<file>: every git command this process runs appends a line there, the time it
 * started (epoch ms) and its subcommand (for the overhead benchmark, which counts git processes per
 * iteration). Read once, at load.
 */
const traceFile = process.env.LOOPWRIGHT_GIT_TRACE || undefined;

/** One trace line: the start time, the subcommand, then the arguments as JSON (for reading, not parsing). */
function traceGit(args: readonly string[]): void {
  if (traceFile) appendFileSync(traceFile, `${Date.now()} ${subcommandOf(args)} ${JSON.stringify(args)}\n`);
}

function subcommandOf(args: readonly string[]): string {
  for (let index = 0; index < args.length; index++) {
    if (args[index] === "-c") index++;
    else if (!args[index].startsWith("-")) return args[index];
  }
  return "?";
}

/**
 * Runs `git <args>` in `cwd` like `git`, and returns its stdout as bytes (for output that mixes sizes
 * in bytes with content, as `cat-file --batch` prints). Throws `GitError` when git exits non-zero.
 */
export function gitBytes(
  args: readonly string[],
  cwd: string,
  options: Pick<GitOptions, "env" | "input"> = {},
): Promise<Buffer> {
  return relievingPlantedFifos(cwd, gitBytesNow(args, cwd, options));
}

async function gitBytesNow(
  args: readonly string[],
  cwd: string,
  options: Pick<GitOptions, "env" | "input">,
): Promise<Buffer> {
  const env = gitEnvironment(options.env);
  traceGit(args);
  const answer = await throughShell(
    singleCommand,
    ["--no-pager", ...neutralisingArguments, ...args],
    cwd,
    env,
    {
      input: options.input,
      encoding: "buffer",
      commands: [args],
    },
  );
  if (answer) {
    if (answer.code !== 0) throw new GitError(args, cwd, { ...answer, stdout: "" });
    return answer.stdout as Buffer;
  }
  const pending = execFileAsync<Buffer>(
    gitExecutable(env.PATH),
    ["--no-pager", ...neutralisingArguments, ...args],
    {
      cwd,
      env,
      encoding: "buffer",
      maxBuffer: maxOutputBytes,
      windowsHide: true,
    },
  );
  pending.child?.stdin?.on("error", () => {});
  pending.child?.stdin?.end(options.input ?? "");
  try {
    return (await pending).stdout;
  } catch (error) {
    const failure = error as NodeJS.ErrnoException & {
      stderr?: Buffer;
      code?: unknown;
      signal?: NodeJS.Signals | null;
    };
    if (failure.code === "ENOENT") {
      throw new Error(`cannot run git in ${cwd}: git is not installed or ${cwd} does not exist`);
    }
    const code = typeof failure.code === "number" ? failure.code : signalCode(failure.signal);
    if (code < 0) throw new Error(`cannot run git in ${cwd}: ${failure.message}`);
    const stderr = failure.stderr?.toString("utf8") ?? "";
    throw new GitError(args, cwd, { code, stdout: "", stderr, timedOut: false });
  }
}

/** The first `fatal:`/`error:` line of git's stderr, else its first non-empty line. */
export function firstErrorLine(stderr: string): string {
  const lines = stderr
    .split("\n")
    .map((line) => line.trim())
    .filter((line) => line !== "");
  return lines.find((line) => /^(fatal|error):/.test(line)) ?? lines[0] ?? "";
}

/**
 * What every git command's environment sets over the inherited one (after `repositoryLocatingVariables`
 * are removed): no prompt, messages in the C locale, and no system-wide attributes (`/etc/gitattributes`):
 * only the tree's own can apply.
 */
export const gitSettings: Readonly<Record<string, string>> = {
  GIT_TERMINAL_PROMPT: "0",
  GIT_ATTR_NOSYSTEM: "1",
  LC_ALL: "C",
};

function gitEnvironment(extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env };
  for (const name of repositoryLocatingVariables) delete env[name];
  return { ...env, ...gitSettings, ...extra };
}
