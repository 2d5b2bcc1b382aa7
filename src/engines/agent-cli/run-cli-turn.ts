/**
 * The process half shared by the agent-CLI engines (claude-code, codex, copilot): runs the CLI headless
 * in the turn's worktree, feeds every stdout line to the engine's translator, streams its events, and
 * enforces the turn's limits: the wall clock (whole process tree), cancellation, a cost watchdog that
 * stops the turn as soon as the cost the CLI reports crosses the cap, and a watch that stops a CLI which
 * only retries to reach an unreachable API (see unreachable-api.ts): that turn is an infrastructure error.
 * The CLI runs in the operating-system sandbox where there is one (see sandbox/turn-sandbox.ts): a
 * read-only role cannot write whatever its own permission rules let through, and nothing it starts
 * outlives the turn.
 */
import { join } from "node:path";
import type { TurnRequest, TurnResult } from "../../core/engine.ts";
import { createRedactor } from "../../core/redact.ts";
import { runCommand } from "../../process/run-command.ts";
import { turnSandboxPlan } from "../../sandbox/turn-sandbox.ts";
import type { CliTranslator } from "./cli-translator.ts";
import { shellQuote } from "./shell-quote.ts";
import { watchUnreachable } from "./unreachable-api.ts";

export interface CliTurnOptions<State> {
  request: TurnRequest;
  /** The executable and its arguments (no shell). */
  argv: string[];
  /** Environment on top of the user's (which passes through untouched). */
  env?: Record<string, string>;
  translator: CliTranslator<State>;
  /** Written to the CLI's stdin; without it stdin is /dev/null. */
  stdin?: string;
  /** Where the CLI keeps its own state (login, sessions, cache): writable in the sandbox. */
  programState?: string[];
  /** Files or folders outside the worktree a read-only turn may read (its evidence). */
  evidence?: string[];
}

/** Marks a process as running inside an engine session: loopwright's own hooks step aside there. */
export const engineSessionVariable = "LOOPWRIGHT_ENGINE_SESSION";

export async function runCliTurn<State>(options: CliTurnOptions<State>): Promise<TurnResult> {
  const { request, translator } = options;
  let state = translator.initial();
  let pending = "";
  const watchdog = new AbortController();
  const onAbort = () => watchdog.abort();
  request.signal.addEventListener("abort", onAbort, { once: true });
  let overBudget = false;
  let unreachable: string | undefined;
  const name = options.argv[0] ?? "the CLI";
  const watch = watchUnreachable(name, () => translator.lastReconnect?.(state));
  const checkUnreachable = () => {
    if (unreachable || overBudget) return;
    unreachable = watch.verdict(Date.now());
    if (unreachable) watchdog.abort();
  };
  const transcriptPath = join(request.turnDirectory, `${request.role}-transcript.jsonl`);
  const feed = (line: string) => {
    if (!line.trim()) return;
    const folded = translator.line(state, line);
    state = folded.state;
    for (const event of folded.events) request.onEvent?.(event);
    const cost = translator.costSoFar(state);
    if (request.maxCostUsd > 0 && cost !== undefined && cost > request.maxCostUsd && !overBudget) {
      overBudget = true;
      watchdog.abort();
    }
    if (translator.reconnects) {
      watch.update(translator.reconnects(state), Date.now());
      checkUnreachable();
    }
  };
  // Retry notices come further and further apart: the time bound needs a clock of its own.
  const ticker = translator.reconnects ? setInterval(checkUnreachable, 1000) : undefined;
  const env = { ...request.env, ...options.env, [engineSessionVariable]: "1" };
  const outcome = await runCommand({
    command: shellQuote(options.argv),
    cwd: request.cwd,
    env,
    stdin: options.stdin,
    sandbox: turnSandboxPlan({
      readOnly: request.readOnly,
      cwd: request.cwd,
      turnDirectory: request.turnDirectory,
      evidence: options.evidence,
      programState: options.programState,
      env,
    }),
    timeoutMs: request.wallClockMs,
    signal: watchdog.signal,
    logPath: transcriptPath,
    redact: createRedactor({ ...process.env, ...env }),
    runId: request.runId,
    stepId: request.stepId,
    onOutput: (chunk, stream) => {
      if (stream !== "stdout") return;
      const lines = (pending + chunk).split("\n");
      pending = lines.pop() ?? "";
      for (const line of lines) feed(line);
    },
  });
  clearInterval(ticker);
  request.signal.removeEventListener("abort", onAbort);
  feed(pending);
  const result = translator.finish(state, {
    exitCode: outcome.exitCode,
    timedOut: outcome.timedOut,
    cancelled: outcome.cancelled && !overBudget && !unreachable,
    overBudget,
    stderrTail: outcome.tail,
  });
  if (outcome.spawnError) return { status: "crashed", text: "", error: outcome.spawnError, transcriptPath };
  if (unreachable)
    return { ...result, status: "crashed", error: unreachable, exitCode: outcome.exitCode, transcriptPath };
  const status = overBudget ? "over_budget" : result.status;
  return { ...result, status, exitCode: outcome.exitCode, transcriptPath };
}
