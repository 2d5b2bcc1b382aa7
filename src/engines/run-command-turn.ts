/** One turn of the `command` engine (command-engine.ts): the command run with its brief, context and sandbox. */
import { join } from "node:path";
import type { TurnRequest, TurnResult } from "../core/engine.ts";
import { createRedactor } from "../core/redact.ts";
import { mkdirSync, writeFileSync } from "../files/node-fs.ts";
import { runCommand } from "../process/run-command.ts";
import { turnSandboxPlan } from "../sandbox/turn-sandbox.ts";
import { accountLimit } from "./command-engine.ts";
import { evidenceFiles } from "./evidence-files.ts";

export async function runCommandTurn(command: string, request: TurnRequest): Promise<TurnResult> {
  // Three small writes just before the command starts: synchronous, each microseconds, rather than a
  // round trip through libuv's thread pool each, one after the other, on the way to the command.
  mkdirSync(request.turnDirectory, { recursive: true });
  const briefPath = join(request.turnDirectory, `${request.role}-brief.md`);
  const contextPath = join(request.turnDirectory, `${request.role}-context.json`);
  writeFileSync(briefPath, request.prompt);
  writeFileSync(contextPath, `${JSON.stringify(request.context, null, 2)}\n`);
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
