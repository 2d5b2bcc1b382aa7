/**
 * The `command` engine: any shell command as maker, verifier or replanner. Contract (documented in the
 * README): run with `sh -c` in the worktree; the brief on stdin and in `$LOOPWRIGHT_BRIEF_FILE`; the
 * JSON context in `$LOOPWRIGHT_CONTEXT_FILE`; `LOOPWRIGHT_ROLE`, `LOOPWRIGHT_ITERATION`,
 * `LOOPWRIGHT_LOOP` set. Its stdout is its answer (the verifier's JSON) or its account (the maker's,
 * last 2 KiB). A non-zero exit is a crash. It runs in the operating-system sandbox where there is one: a
 * maker writes only its worktree and a temporary folder, a verifier or replanner writes nothing but
 * temporary files and sees of loopwright's state only its brief, its context and the evidence.
 */
import { mkdir, writeFile } from "node:fs/promises";
import { join } from "node:path";
import type { Engine, TurnRequest, TurnResult } from "../core/engine.ts";
import { createRedactor } from "../core/redact.ts";
import { runCommand } from "../process/run-command.ts";
import { turnSandboxPlan } from "../sandbox/turn-sandbox.ts";
import { evidenceFiles } from "./evidence-files.ts";

/** How much of a maker's stdout is kept as its account of the attempt. */
export const accountLimit = 2048;

export function createCommandEngine(command: string): Engine {
  return {
    name: "command",
    family: `command:${command}`,
    runTurn: (request) => runCommandTurn(command, request),
  };
}

async function runCommandTurn(command: string, request: TurnRequest): Promise<TurnResult> {
  await mkdir(request.turnDirectory, { recursive: true });
  const briefPath = join(request.turnDirectory, `${request.role}-brief.md`);
  const contextPath = join(request.turnDirectory, `${request.role}-context.json`);
  await writeFile(briefPath, request.prompt);
  await writeFile(contextPath, `${JSON.stringify(request.context, null, 2)}\n`);
  const context = request.context as { iteration?: number; loop?: string };
  const logPath = join(request.turnDirectory, `${request.role}.log`);
  const outcome = await runCommand({
    command,
    cwd: request.cwd,
    env: {
      ...request.env,
      LOOPWRIGHT_BRIEF_FILE: briefPath,
      LOOPWRIGHT_CONTEXT_FILE: contextPath,
      LOOPWRIGHT_ROLE: request.role,
      LOOPWRIGHT_ITERATION: String(context.iteration ?? ""),
      LOOPWRIGHT_LOOP: String(context.loop ?? ""),
    },
    stdin: request.prompt,
    timeoutMs: request.wallClockMs,
    signal: request.signal,
    logPath,
    // The log, the account and the verdict are stored: secrets of the environment never are.
    redact: createRedactor({ ...process.env, ...request.env }),
    captureStdout: true,
    sandbox: turnSandboxPlan({
      readOnly: request.readOnly,
      cwd: request.cwd,
      turnDirectory: request.turnDirectory,
      evidence: [briefPath, contextPath, ...evidenceFiles(request.context)],
      env: request.env,
    }),
    runId: request.runId,
    stepId: request.stepId,
  });
  const stdout = outcome.stdout ?? "";
  const text = stdout.length > accountLimit ? stdout.slice(-accountLimit) : stdout;
  const base = { text, output: stdout, exitCode: outcome.exitCode, transcriptPath: logPath };
  if (outcome.cancelled) return { ...base, status: "cancelled" };
  if (outcome.timedOut) return { ...base, status: "timeout" };
  if (outcome.spawnError) return { ...base, status: "crashed", error: outcome.spawnError };
  if (outcome.exitCode !== 0) {
    const lastLine = outcome.tail.trim().split("\n").at(-1) ?? "";
    const how =
      outcome.exitCode === null ? `was killed by ${outcome.signal}` : `exited with code ${outcome.exitCode}`;
    return { ...base, status: "crashed", error: `\`${command}\` ${how}${lastLine ? `: ${lastLine}` : ""}` };
  }
  return { ...base, status: "completed" };
}
