/**
 * Runs the real `loopwright hook <event>` as Claude Code does: a child process with the hook's JSON on
 * stdin, read back as the one JSON object it must print. Plus the hook state as stored on disk.
 */
import { spawn } from "node:child_process";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import type { HookOutput } from "../../src/hooks/hook-io.ts";
import type { HookState } from "../../src/hooks/state/hook-state.ts";
import { binary } from "./loop-sandbox.ts";

export interface HookRun {
  code: number | null;
  /** stdout parsed as JSON (undefined when it is not JSON). */
  output: HookOutput | undefined;
  stdout: string;
  stderr: string;
}

/** `loopwright hook <event>` in `cwd` with `input` (an object gets `cwd` added; a string is sent as is). */
export function runHookProcess(
  event: string,
  cwd: string,
  input: Record<string, unknown> | string,
  env: NodeJS.ProcessEnv,
  node = process.execPath,
): Promise<HookRun> {
  return new Promise((resolve, reject) => {
    const child = spawn(node, [binary, "hook", event], { cwd, env, stdio: ["pipe", "pipe", "pipe"] });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (chunk) => {
      stdout += chunk;
    });
    child.stderr.on("data", (chunk) => {
      stderr += chunk;
    });
    const timer = setTimeout(() => child.kill("SIGKILL"), 60_000);
    child.on("error", reject);
    child.on("close", (code) => {
      clearTimeout(timer);
      let output: HookOutput | undefined;
      try {
        output = JSON.parse(stdout);
      } catch {
        output = undefined;
      }
      resolve({ code, output, stdout, stderr });
    });
    child.stdin.end(typeof input === "string" ? input : JSON.stringify({ cwd, session_id: "s1", ...input }));
  });
}

/** `.loopwright/state.json` of the checkout at `root`. */
export function hookState(root: string): HookState {
  return JSON.parse(readFileSync(join(root, ".loopwright", "state.json"), "utf8"));
}
