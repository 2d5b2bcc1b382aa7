/**
 * A sandbox for end-to-end tests of the CLI: a real git repository with a few files and one commit, a
 * private LOOPWRIGHT_HOME, and `cli(...)`, which runs the real `loopwright` binary as a child process.
 * Git is isolated from the machine's configuration (empty global config, no identity), like a fresh box.
 */
import { type ChildProcess, execFile, spawn } from "node:child_process";
import { mkdir, mkdtemp, realpath, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { promisify } from "node:util";
import { isolateGit } from "./isolated-git.ts";

const execFileAsync = promisify(execFile);
export const binary = new URL("../../bin/loopwright.js", import.meta.url).pathname;

export interface CliResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

export interface Sandbox {
  root: string;
  repo: string;
  home: string;
  env: NodeJS.ProcessEnv;
  /** Writes files (relative to the repository) without committing them. */
  write(files: Record<string, string>): Promise<void>;
  /** Writes files and commits them. */
  commit(files: Record<string, string>, message?: string): Promise<string>;
  /** Writes a spec file (default: loop.yaml in the sandbox root, outside the repository). */
  spec(text: string, path?: string): Promise<string>;
  git(...args: string[]): Promise<string>;
  /** Runs the CLI to completion. */
  cli(
    args: string[],
    options?: { cwd?: string; env?: NodeJS.ProcessEnv; timeoutMs?: number },
  ): Promise<CliResult>;
  /** Starts the CLI and returns the child (for cancel, pause and kill tests). */
  spawnCli(
    args: string[],
    options?: { cwd?: string; env?: NodeJS.ProcessEnv },
  ): ChildProcess & { output: () => CliResult; done: Promise<CliResult> };
  cleanup(): Promise<void>;
}

export async function createSandbox(
  files: Record<string, string> = { "README.md": "# sandbox\n" },
): Promise<Sandbox> {
  const root = await realpath(await mkdtemp(join(tmpdir(), "loopwright-e2e-")));
  const repo = join(root, "repo");
  const home = join(root, "home");
  await mkdir(repo, { recursive: true });
  const gitConfig = join(root, "gitconfig");
  await writeFile(gitConfig, "");
  const env: NodeJS.ProcessEnv = { ...process.env, LOOPWRIGHT_HOME: home };
  isolateGit(env, gitConfig);
  delete env.LOOPWRIGHT_TEST_CRASH_AFTER_EVENT;
  const git = async (...args: string[]) =>
    (
      await execFileAsync(
        "git",
        ["-c", "user.name=Sandbox", "-c", "user.email=sandbox@example.com", ...args],
        { cwd: repo, env },
      )
    ).stdout.trim();
  const write = async (entries: Record<string, string>) => {
    for (const [path, content] of Object.entries(entries)) {
      await mkdir(dirname(join(repo, path)), { recursive: true });
      await writeFile(join(repo, path), content);
    }
  };
  await git("init", "-q", "-b", "main");
  await write(files);
  await git("add", "-A");
  await git("commit", "-q", "-m", "initial");
  const collect = (child: ChildProcess) => {
    let stdout = "";
    let stderr = "";
    child.stdout?.on("data", (chunk) => {
      stdout += chunk;
    });
    child.stderr?.on("data", (chunk) => {
      stderr += chunk;
    });
    const done = new Promise<CliResult>((resolve) => {
      child.on("close", (code) => resolve({ code, stdout, stderr }));
    });
    return { output: () => ({ code: child.exitCode, stdout, stderr }), done };
  };
  const children = new Set<ChildProcess>();
  const spawnCli: Sandbox["spawnCli"] = (args, options = {}) => {
    const child = spawn(process.execPath, [binary, ...args], {
      cwd: options.cwd ?? repo,
      env: { ...env, ...options.env },
      stdio: ["ignore", "pipe", "pipe"],
    });
    children.add(child);
    child.on("exit", () => children.delete(child));
    return Object.assign(child, collect(child));
  };
  return {
    root,
    repo,
    home,
    env,
    write,
    commit: async (entries, message = "change") => {
      await write(entries);
      await git("add", "-A");
      await git("commit", "-q", "-m", message);
      return git("rev-parse", "HEAD");
    },
    spec: async (text, path = join(root, "loop.yaml")) => {
      await mkdir(dirname(path), { recursive: true });
      await writeFile(path, text);
      return path;
    },
    git,
    cli: async (args, options = {}) => {
      const child = spawnCli(args, options);
      const timer = setTimeout(() => child.kill("SIGKILL"), options.timeoutMs ?? 120_000);
      const result = await child.done;
      clearTimeout(timer);
      return result;
    },
    spawnCli,
    cleanup: async () => {
      // A test that failed half-way must not leave a controller running (it would keep the test file alive).
      for (const child of children) child.kill("SIGKILL");
      await rm(root, { recursive: true, force: true });
    },
  };
}
