/**
 * One turn of the `builtin` engine: the agent in the turn's worktree, limited by the turn's wall clock and
 * dollar cap, its events streamed to the caller and written to `<role>-transcript.jsonl` in the turn's
 * folder. End reasons map to turn statuses: completed and max_turns are finished attempts (the gates
 * grade them), max_budget is over_budget, timeout is timeout, aborted is cancelled, error is crashed.
 */

import { mkdir } from "node:fs/promises";
import { join } from "node:path";
import { runAgent } from "../../agent/agent-loop.ts";
import type { AgentEvent, EndReason } from "../../agent/agent-types.ts";
import { buildSystemPrompt } from "../../agent/prompts/system-prompt.ts";
import { createAgentModel } from "../../agent/providers.ts";
import { fullTools, readOnlyTools } from "../../agent/tools/tool-sets.ts";
import type { TurnRequest, TurnResult, TurnStatus } from "../../core/engine.ts";
import { appendFileSync, writeFileSync } from "../../files/node-fs.ts";
import { extractJsonAnswer } from "../agent-cli/json-answer.ts";
import { engineSessionVariable } from "../agent-cli/run-cli-turn.ts";
import { accountLimit } from "../command-engine.ts";
import { evidenceFiles } from "../evidence-files.ts";
import type { BuiltinSettings } from "./builtin-settings.ts";

const statuses: Record<EndReason, TurnStatus> = {
  completed: "completed",
  max_turns: "completed",
  max_budget: "over_budget",
  timeout: "timeout",
  aborted: "cancelled",
  error: "crashed",
};

export async function runBuiltinTurn(settings: BuiltinSettings, request: TurnRequest): Promise<TurnResult> {
  const scratch = join(request.turnDirectory, `${request.role}-agent`);
  await mkdir(scratch, { recursive: true });
  const transcriptPath = join(request.turnDirectory, `${request.role}-transcript.jsonl`);
  const transcript = openTranscript(transcriptPath);
  const structured = request.role !== "maker";
  const tools = request.readOnly ? readOnlyTools : fullTools;
  const model = createAgentModel(settings.model, {
    env: { ...process.env, ...request.env },
    contextWindow: settings.contextWindow,
    maxOutputTokens: settings.maxOutputTokens,
    sessionKey: `${request.runId}:${request.stepId}`,
    apiKeyEnv: settings.apiKeyEnv,
  });
  const result = await runAgent({
    model,
    prompt: request.prompt,
    system: buildSystemPrompt({
      workingDirectory: request.cwd,
      readOnly: request.readOnly,
      toolNames: tools.map((tool) => tool.name),
      structuredAnswer: structured && request.outputSchema !== undefined,
    }),
    tools: [...tools],
    workspace: {
      root: request.cwd,
      readable: request.readOnly ? evidenceFiles(request.context) : [],
      scratch,
    },
    maxTurns: settings.maxTurns,
    maxCostUsd: request.maxCostUsd,
    timeoutMs: request.wallClockMs,
    answerSchema: structured ? request.outputSchema : undefined,
    signal: request.signal,
    onEvent: (event) => {
      transcript.record(event);
      if (event.type === "text" || event.type === "tool" || event.type === "usage") request.onEvent?.(event);
    },
    runId: request.runId,
    stepId: request.stepId,
    env: { ...request.env, [engineSessionVariable]: "1" },
  });
  transcript.close({
    endReason: result.endReason,
    error: result.error,
    turns: result.turns,
    messages: result.messages,
  });
  const output = structured ? (result.answer ?? extractJsonAnswer(result.text)) : undefined;
  const account =
    result.endReason === "max_turns"
      ? `${result.text}\n[stopped at the turn limit: ${settings.maxTurns} model calls]`
      : result.text;
  return {
    status: statuses[result.endReason],
    text: account.length > accountLimit ? account.slice(-accountLimit) : account,
    output,
    error: result.error,
    usage: result.usage,
    costUsd: result.costUsd,
    transcriptPath,
  };
}

/** A JSON-lines transcript: each event (text deltas joined into one line per stretch), then the end. */
function openTranscript(path: string) {
  writeFileSync(path, "");
  let text = "";
  const write = (value: unknown) => {
    try {
      appendFileSync(path, `${JSON.stringify(value)}\n`);
    } catch {
      // A transcript that cannot be written must not fail the turn.
    }
  };
  const flush = () => {
    if (text) write({ type: "text", text });
    text = "";
  };
  return {
    record(event: AgentEvent) {
      if (event.type === "text") text += event.text;
      else {
        flush();
        write(event);
      }
    },
    close(end: Record<string, unknown>) {
      flush();
      write({ type: "turn_ended", ...end });
    },
  };
}
