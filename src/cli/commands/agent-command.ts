/**
 * `agent "PROMPT" [--model ID] [--read-only] [--max-turns N] [--api-key-env NAME]`: the built-in agent alone in the current
 * directory, a minimal headless coding agent. The model's text streams to stdout as it arrives; tool
 * calls, compactions and retries are lines of their own; the last line says how it ended and what it cost.
 * Exit codes: 0 completed, 3 a limit ended it (turns, time), 5 the model API failed, 130 interrupted.
 */
import { randomUUID } from "node:crypto";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { runAgent } from "../../agent/agent-loop.ts";
import type { AgentEvent, EndReason } from "../../agent/agent-types.ts";
import { defaultModelId } from "../../agent/model-id.ts";
import { buildSystemPrompt } from "../../agent/prompts/system-prompt.ts";
import { createAgentModel } from "../../agent/providers.ts";
import { fullTools, readOnlyTools } from "../../agent/tools/tool-sets.ts";
import { ExitCode, UsageError } from "../../errors.ts";

export interface AgentCommandOptions {
  model?: string;
  readOnly?: boolean;
  maxTurns?: string;
  apiKeyEnv?: string;
}

const exitCodes: Record<EndReason, number> = {
  completed: ExitCode.verified,
  max_turns: ExitCode.budget_exhausted,
  max_budget: ExitCode.budget_exhausted,
  timeout: ExitCode.budget_exhausted,
  aborted: ExitCode.user_cancelled,
  error: ExitCode.circuit_broken,
};

export async function agentCommand(prompt: string, options: AgentCommandOptions): Promise<number> {
  if (!prompt.trim()) throw new UsageError("agent: the prompt is empty");
  const maxTurns = options.maxTurns === undefined ? 0 : Number(options.maxTurns);
  if (!Number.isInteger(maxTurns) || maxTurns < 0)
    throw new UsageError(
      `--max-turns must be a whole number (0 = none), got ${JSON.stringify(options.maxTurns)}`,
    );
  if (options.apiKeyEnv !== undefined && !/^[A-Za-z_][A-Za-z0-9_]*$/.test(options.apiKeyEnv))
    throw new UsageError(`--api-key-env takes a variable name, got ${JSON.stringify(options.apiKeyEnv)}`);
  const model = createAgentModel(options.model ?? defaultModelId, {
    sessionKey: randomUUID(),
    apiKeyEnv: options.apiKeyEnv,
  });
  const tools = options.readOnly ? readOnlyTools : fullTools;
  const scratch = await mkdtemp(join(tmpdir(), "loopwright-agent-"));
  const interrupt = new AbortController();
  const onSignal = () => {
    if (interrupt.signal.aborted) process.exit(ExitCode.user_cancelled);
    interrupt.abort();
  };
  process.on("SIGINT", onSignal);
  process.on("SIGTERM", onSignal);
  const printer = streamPrinter();
  try {
    const result = await runAgent({
      model,
      prompt,
      system: buildSystemPrompt({
        workingDirectory: process.cwd(),
        readOnly: options.readOnly ?? false,
        toolNames: tools.map((tool) => tool.name),
        structuredAnswer: false,
      }),
      tools: [...tools],
      workspace: { root: process.cwd(), readable: [], scratch },
      maxTurns,
      maxCostUsd: 0,
      timeoutMs: 0,
      signal: interrupt.signal,
      onEvent: printer.event,
      runId: `agent-${randomUUID()}`,
      stepId: "agent",
    });
    const cost = result.costUsd === undefined ? "cost unknown" : `$${result.costUsd.toFixed(4)}`;
    printer.line(
      `${result.endReason}${result.error ? `: ${result.error}` : ""} · ${result.turns} model call(s) · ` +
        `${result.usage.inputTokens} tokens in, ${result.usage.outputTokens} out · ${cost} · ${model.id}`,
    );
    return exitCodes[result.endReason];
  } finally {
    process.off("SIGINT", onSignal);
    process.off("SIGTERM", onSignal);
    await rm(scratch, { recursive: true, force: true });
  }
}

/** Text deltas as they come; everything else on a line of its own, after a newline if text was open. */
function streamPrinter(write: (text: string) => void = (text) => process.stdout.write(text)) {
  let openLine = false;
  const line = (text: string) => {
    write(`${openLine ? "\n" : ""}${text}\n`);
    openLine = false;
  };
  const event = (event: AgentEvent) => {
    switch (event.type) {
      case "text":
        write(event.text);
        openLine = !event.text.endsWith("\n");
        return;
      case "tool":
        return line(`→ ${event.name}${event.detail ? ` ${event.detail}` : ""}`);
      case "tool_ended":
        if (!event.ok) line(`✗ ${event.name}${event.detail ? ` ${event.detail}` : ""} failed`);
        return;
      case "context_compacted":
        return line(
          `· context compacted (${event.method.replaceAll("_", " ")}): ${event.tokensBefore} → ${event.tokensAfter} tokens`,
        );
      case "model_retried":
        return line(`· HTTP ${event.status}: retrying in ${(event.delayMs / 1000).toFixed(1)} s`);
      case "usage":
        return;
    }
  };
  return { event, line };
}
