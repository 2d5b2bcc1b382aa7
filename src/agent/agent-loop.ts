/**
 * The built-in agent loop. `runAgent` is the algorithm: call the model, append its answer, stop on an
 * error or an abort, run the tools it asked for (in parallel), append their results, check the limits,
 * repeat until it answers without a tool call. The helpers below it keep the run's bookkeeping.
 */
import { jsonSchema, type ModelMessage, type ToolSet } from "ai";
import { z } from "zod";
import type { TokenUsage } from "../core/engine.ts";
import { costOf } from "../core/pricing.ts";
import type { AgentConfiguration, AgentResult, EndReason } from "./agent-types.ts";
import { compactContext } from "./context-compaction.ts";
import { callModel, type ModelAnswer, type RequestedToolCall } from "./model-call.ts";
import { summaryRequest, summarySystemPrompt } from "./prompts/summary-prompt.ts";
import { structuredOutputDescription } from "./prompts/tool-descriptions.ts";
import { runToolCall, type ToolResult } from "./tools/run-tool-call.ts";
import type { AgentTool } from "./tools/tool-contract.ts";

/** The tool a run with an `answerSchema` answers with (the name Claude Code and the mock-model use). */
export const answerToolName = "StructuredOutput";

/** Runs the agent to one of its end reasons. Never throws for a runtime failure. */
export async function runAgent(configuration: AgentConfiguration): Promise<AgentResult> {
  const run = startRun(configuration);
  for (;;) {
    run.messages = await compactContext(run.compaction());
    const answer = await run.callModel();
    run.messages.push(assistantMessage(answer));
    if (answer.failure) return run.end(run.stopped() ?? "error", answer.failure);

    const submitted = answer.toolCalls.find(
      (call) => call.name === answerToolName && configuration.answerSchema !== undefined,
    );
    if (submitted) return run.end("completed", undefined, JSON.stringify(submitted.input));
    if (answer.toolCalls.length === 0) return run.end("completed");

    const results = await Promise.all(answer.toolCalls.map((call, index) => run.runTool(call, index)));
    run.messages.push(toolMessage(answer.toolCalls, results));

    const limit = run.limitReached();
    if (limit) return run.end(limit);
  }
}

/** Everything a run keeps between model calls, and the steps `runAgent` delegates to. */
function startRun(configuration: AgentConfiguration) {
  const { model } = configuration;
  const timeout = configuration.timeoutMs > 0 ? AbortSignal.timeout(configuration.timeoutMs) : undefined;
  const signal = AbortSignal.any(
    [configuration.signal, timeout].filter((item): item is AbortSignal => item !== undefined),
  );
  const tools = advertisedTools(configuration.tools, configuration.answerSchema);
  const toolsSize = JSON.stringify(tools).length;
  const usage: TokenUsage = { inputTokens: 0, outputTokens: 0, cachedInputTokens: 0 };
  let costUsd: number | undefined = 0;
  let turns = 0;
  let lastText = "";
  // Reported input tokens per estimated token, learned from each call (characters / 4 is only a guess).
  let calibration = 1;
  const limits = { maxChars: Math.min(50_000, Math.floor(model.contextWindow / 2)), maxLines: 2000 };
  const retries = configuration.maxRetries ?? 4;

  const messageTokens = (messages: ModelMessage[]) =>
    Math.ceil((JSON.stringify(messages).length / 4) * calibration);
  const requestTokens = (messages: ModelMessage[]) =>
    Math.ceil(
      ((configuration.system.length + toolsSize + JSON.stringify(messages).length) / 4) * calibration,
    );

  const account = (answer: ModelAnswer) => {
    usage.inputTokens += answer.usage.inputTokens;
    usage.outputTokens += answer.usage.outputTokens;
    usage.cachedInputTokens = (usage.cachedInputTokens ?? 0) + (answer.usage.cachedInputTokens ?? 0);
    const cost = costOf(model.parsed.name, answer.usage);
    costUsd = cost === undefined || costUsd === undefined ? undefined : costUsd + cost;
    configuration.onEvent?.({ type: "usage", usage: { ...usage }, costUsd });
  };

  const run = {
    messages: [{ role: "user", content: configuration.prompt }] as ModelMessage[],

    stopped(): EndReason | undefined {
      if (timeout?.aborted) return "timeout";
      if (configuration.signal?.aborted) return "aborted";
      return undefined;
    },

    compaction() {
      return {
        messages: run.messages,
        requestTokens,
        messageTokens,
        room: model.contextWindow - model.maxOutputTokens,
        summarize: run.summarize,
        onEvent: configuration.onEvent,
      };
    },

    async callModel(): Promise<ModelAnswer> {
      turns += 1;
      const estimate = requestTokens(run.messages);
      const answer = await callModel({
        model,
        system: configuration.system,
        messages: run.messages,
        tools,
        signal,
        maxRetries: retries,
        onEvent: configuration.onEvent,
        streamText: true,
      });
      account(answer);
      if (answer.usage.inputTokens > 0)
        calibration = Math.min(3, Math.max(0.5, (calibration * answer.usage.inputTokens) / estimate));
      if (answer.text.trim()) lastText = answer.text;
      return answer;
    },

    async summarize(transcript: string): Promise<string | undefined> {
      const answer = await callModel({
        model,
        system: summarySystemPrompt,
        messages: [{ role: "user", content: summaryRequest(transcript) }],
        signal,
        maxRetries: retries,
        onEvent: configuration.onEvent,
        streamText: false,
      });
      account(answer);
      return answer.failure || !answer.text.trim() ? undefined : answer.text;
    },

    async runTool(call: RequestedToolCall, index: number): Promise<ToolResult> {
      const tool = configuration.tools.find((candidate) => candidate.name === call.name);
      const detail = describeCall(tool?.summarize, call.input);
      configuration.onEvent?.({ type: "tool", name: call.name, detail });
      const result = await runToolCall(
        call,
        configuration.tools,
        {
          workspace: configuration.workspace,
          signal,
          runId: configuration.runId,
          stepId: `${configuration.stepId}-t${turns}-${index + 1}`,
          env: configuration.env,
        },
        limits,
      );
      configuration.onEvent?.({ type: "tool_ended", name: call.name, ok: result.ok, detail });
      return result;
    },

    limitReached(): EndReason | undefined {
      const stopped = run.stopped();
      if (stopped) return stopped;
      // Money spent past the cap outranks the turn count: the loop treats it as a budget stop.
      if (configuration.maxCostUsd > 0 && costUsd !== undefined && costUsd >= configuration.maxCostUsd)
        return "max_budget";
      if (configuration.maxTurns > 0 && turns >= configuration.maxTurns) return "max_turns";
      return undefined;
    },

    end(endReason: EndReason, error?: string, answer?: string): AgentResult {
      return {
        endReason,
        text: lastText,
        answer,
        error: endReason === "error" ? error : undefined,
        usage: { ...usage },
        costUsd,
        turns,
        messages: run.messages,
      };
    },
  };
  return run;
}

/** The tools as the SDK advertises them: names, descriptions, JSON Schemas (the SDK executes nothing). */
export function advertisedTools(agentTools: readonly AgentTool[], answerSchema?: unknown): ToolSet {
  const tools: ToolSet = {};
  for (const tool of agentTools)
    tools[tool.name] = {
      description: tool.description,
      inputSchema: jsonSchema(withoutMetaSchema(z.toJSONSchema(tool.inputSchema, { io: "input" }))),
    };
  if (answerSchema !== undefined)
    tools[answerToolName] = {
      description: structuredOutputDescription,
      inputSchema: jsonSchema(withoutMetaSchema(answerSchema)),
    };
  return tools;
}

function withoutMetaSchema(schema: unknown): Parameters<typeof jsonSchema>[0] {
  const { $schema: _meta, ...rest } = schema as Record<string, unknown>;
  return rest as Parameters<typeof jsonSchema>[0];
}

function assistantMessage(answer: ModelAnswer): ModelMessage {
  return {
    role: "assistant",
    content: [
      ...(answer.text ? [{ type: "text" as const, text: answer.text }] : []),
      ...answer.toolCalls.map((call) => ({
        type: "tool-call" as const,
        toolCallId: call.id,
        toolName: call.name,
        input: call.input,
      })),
    ],
  };
}

function toolMessage(calls: RequestedToolCall[], results: ToolResult[]): ModelMessage {
  return {
    role: "tool",
    content: calls.map((call, index) => ({
      type: "tool-result" as const,
      toolCallId: call.id,
      toolName: call.name,
      output: {
        type: results[index].ok ? ("text" as const) : ("error-text" as const),
        value: results[index].text,
      },
    })),
  };
}

/** The tool's one-line summary of its input; the input as JSON when there is no such tool or it does not fit. */
function describeCall(summarize: ((input: never) => string) | undefined, input: unknown): string {
  let summary: string | undefined;
  try {
    summary = summarize?.(input as never);
  } catch {
    summary = undefined;
  }
  return (typeof summary === "string" ? summary : JSON.stringify(input ?? null)).split("\n")[0].slice(0, 200);
}
