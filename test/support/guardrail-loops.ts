/**
 * What the guardrail tests share: a repository whose goal is an `answer.txt` that says 42, and `runLoop`,
 * a real loop through the real CLI that asserts no process it started survives it (every process
 * loopwright starts inherits the sandbox's LOOPWRIGHT_HOME, which is how it finds them).
 */
import assert from "node:assert/strict";
import { chmod, writeFile } from "node:fs/promises";
import { join } from "node:path";
import type { LoopEvent } from "../../src/core/events.ts";
import { type CliResult, createSandbox, type Sandbox } from "./loop-sandbox.ts";
import { eventsIn, loopSummary } from "./loop-timeline.ts";
import { survivors } from "./surviving-processes.ts";

/** A sandbox whose repository holds a README and an `answer.txt` that says 0. */
export function createAnswerSandbox(): Promise<Sandbox> {
  return createSandbox({ "README.md": "# repo\n", "answer.txt": "0\n" });
}

export interface LoopRun extends CliResult {
  events: LoopEvent[];
  /** `show <loop> --json`. */
  summary: {
    id: string;
    stopReason: string;
    stopMessage: string;
    iterations: {
      iteration: number;
      outcome: string;
      summary: string;
      commit?: string;
      repeat: boolean;
      gates: { id: string; phase: string; passed: boolean; timedOut: boolean; exitCode: number | null }[];
    }[];
    finished?: { pushed: boolean; sha: string };
  };
}

/**
 * Writes the spec (and any helper scripts next to it, made executable), runs the loop with `--json`,
 * asserts that no process it started survives, and returns its events and `show --json` summary.
 */
export async function runLoop(
  box: Sandbox,
  spec: string,
  options: { scripts?: Record<string, string>; env?: NodeJS.ProcessEnv } = {},
): Promise<LoopRun> {
  for (const [file, body] of Object.entries(options.scripts ?? {})) {
    await writeFile(join(box.root, file), body);
    await chmod(join(box.root, file), 0o755);
  }
  const name = /^name: (\S+)$/m.exec(spec)?.[1] ?? "";
  const specPath = await box.spec(spec, join(box.root, `${name}.yaml`));
  const result = await box.cli(["run", specPath, "--json"], { env: options.env, timeoutMs: 60_000 });
  assert.deepEqual(survivors(box.home), [], "no process of the loop survives it");
  return { ...result, events: eventsIn<LoopEvent>(result.stdout), summary: await loopSummary(box, name) };
}

/** `brief <loop> --iteration <n>`: the brief the maker was sent; asserts that it succeeded. */
export async function brief(box: Sandbox, loop: string, iteration: number): Promise<string> {
  const result = await box.cli(["brief", loop, "--iteration", String(iteration)]);
  assert.equal(result.code, 0, result.stderr);
  return result.stdout;
}

/** The goal as a gate: green once `answer.txt` says 42. */
export const answerGate = `  - { id: answer, kind: tests-pass, run: "grep -qx 42 answer.txt", timeout: 20s }`;

/** A shell-quoted verdict that approves `answerGate`, citing `answer.txt`. */
export const approvingVerdict = `'{"overall":"pass","gates":[{"id":"answer","passed":true,"evidence":[{"file":"answer.txt","line":1}]}]}'`;
