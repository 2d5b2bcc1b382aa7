/**
 * The built-in agent, against the mock-model server (Anthropic protocol) on this machine.
 *
 * 1. Context management: a 40-turn scripted session whose every turn reads a 12 KB file, run twice in
 *    the same process: with a 32k-token window (old outputs shortened, older turns summarized when the
 *    conversation nears it) and with a window so large that nothing is ever compacted, i.e. the full
 *    history resent every turn. Compared: the input tokens the model was sent in total (summary calls
 *    included), as the server counts them. Target: at most half.
 * 2. The loop's own overhead per turn with an instant model: a 40-turn session of small tool calls, and
 *    in the same round the very same 40 requests sent straight through the SDK with no loop around them
 *    (no tools run, no compaction check, no events). The difference per turn is the loop's overhead.
 */
import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type ModelMessage, streamText } from "ai";
import { advertisedTools, runAgent } from "../src/agent/agent-loop.ts";
import type { AgentResult } from "../src/agent/agent-types.ts";
import { buildSystemPrompt } from "../src/agent/prompts/system-prompt.ts";
import { createAgentModel } from "../src/agent/providers.ts";
import { fullTools } from "../src/agent/tools/tool-sets.ts";
import type { ScriptInput } from "../src/mock-model/script.ts";
import { type MockModel, startMockModel } from "../src/mock-model/server.ts";
import { type BenchRow, median } from "./support.ts";

const turnCount = 40;
const managedWindow = 32_000;
const unmanagedWindow = 100_000_000;
const overheadRounds = 5;
const targetOverheadMs = 10;

type TurnInput = NonNullable<ScriptInput["turns"]>[number];

function session(tool: TurnInput["tools"]): TurnInput[] {
  const turns: TurnInput[] = Array.from({ length: turnCount - 1 }, (_, index) => ({
    text: `Turn ${index}: reading it again.`,
    tools: tool,
  }));
  return [...turns, { text: "Finished." }];
}

export async function benchAgent(): Promise<BenchRow[]> {
  const folder = await mkdtemp(join(tmpdir(), "loopwright-bench-agent-"));
  const root = join(folder, "work");
  const scratch = join(folder, "scratch");
  await mkdir(root);
  await mkdir(scratch);
  await writeFile(join(root, "big.txt"), `${"0123456789abcdef ".repeat(11)}\n`.repeat(64));
  await writeFile(join(root, "small.txt"), "small\n");
  const server = await startMockModel({
    script: {
      conversations: [
        {
          name: "summary",
          when: { contains: "You compress the earlier part" },
          turns: [{ text: "Summary: the task reads big.txt every turn; nothing else is needed." }],
        },
        {
          name: "large",
          when: { contains: "LARGE OUTPUTS" },
          turns: session([{ name: "read", input: { path: "big.txt" } }]),
        },
        {
          name: "small",
          when: { contains: "SMALL OUTPUTS" },
          turns: session([{ name: "read", input: { path: "small.txt" } }]),
        },
      ],
    },
  });
  try {
    const agent = (task: string, contextWindow: number) =>
      runSession(server, task, contextWindow, root, scratch);
    const managed = await agent("LARGE OUTPUTS", managedWindow);
    const full = await agent("LARGE OUTPUTS", unmanagedWindow);
    for (const result of [managed, full])
      if (result.endReason !== "completed" || result.turns !== turnCount)
        throw new Error(`the session ended ${result.endReason} after ${result.turns} turns: ${result.error}`);

    const agentPerTurn: number[] = [];
    const barePerTurn: number[] = [];
    for (let round = 0; round < overheadRounds; round++) {
      const started = performance.now();
      const result = await agent("SMALL OUTPUTS", 0);
      agentPerTurn.push((performance.now() - started) / result.turns);
      barePerTurn.push(await replayBare(server, result.messages));
    }
    const overhead = median(agentPerTurn) - median(barePerTurn);
    const tokenRatio = managed.usage.inputTokens / full.usage.inputTokens;
    return [
      {
        name: "agent input tokens, 40 turns (tokens, not ms)",
        median: managed.usage.inputTokens,
        baselineName: "full history every turn",
        baselineMedian: full.usage.inputTokens,
        ratio: tokenRatio,
        target: "≤ 0.5×",
        met: tokenRatio <= 0.5,
        samples: [managed.usage.inputTokens],
        baselineSamples: [full.usage.inputTokens],
        details: [
          `managed (window ${managedWindow} tokens): ${managed.usage.inputTokens} input tokens; full history: ${full.usage.inputTokens}`,
          `cost at mock-model prices: $${managed.costUsd?.toFixed(4)} managed vs $${full.costUsd?.toFixed(4)} full history`,
        ],
      },
      {
        name: "agent loop overhead / turn",
        median: median(agentPerTurn),
        baselineName: "same requests, no loop",
        baselineMedian: median(barePerTurn),
        ratio: median(agentPerTurn) / median(barePerTurn),
        target: `overhead < ${targetOverheadMs} ms`,
        met: overhead < targetOverheadMs,
        samples: agentPerTurn,
        baselineSamples: barePerTurn,
        details: [
          `overhead per turn (loop − bare requests): ${overhead.toFixed(2)} ms, over ${overheadRounds} rounds of ${turnCount} turns; the loop's turn includes running a read of a small file`,
        ],
      },
    ];
  } finally {
    await server.close();
    await rm(folder, { recursive: true, force: true });
  }
}

async function runSession(
  server: MockModel,
  task: string,
  contextWindow: number,
  root: string,
  scratch: string,
): Promise<AgentResult> {
  const model = createAgentModel("anthropic:mock-model", {
    env: { ANTHROPIC_BASE_URL: server.url, ANTHROPIC_API_KEY: "bench" },
    contextWindow,
  });
  return runAgent({
    model,
    prompt: task,
    system: buildSystemPrompt({
      workingDirectory: root,
      readOnly: false,
      toolNames: fullTools.map((tool) => tool.name),
      structuredAnswer: false,
    }),
    tools: [...fullTools],
    workspace: { root, readable: [], scratch },
    maxTurns: 0,
    maxCostUsd: 0,
    timeoutMs: 0,
    runId: "bench-agent",
    stepId: "agent",
  });
}

/** Sends the requests of a finished session again, straight through the SDK; milliseconds per request. */
async function replayBare(server: MockModel, messages: ModelMessage[]): Promise<number> {
  const model = createAgentModel("anthropic:mock-model", {
    env: { ANTHROPIC_BASE_URL: server.url, ANTHROPIC_API_KEY: "bench" },
  });
  const system = buildSystemPrompt({
    workingDirectory: "/bench",
    readOnly: false,
    toolNames: fullTools.map((tool) => tool.name),
    structuredAnswer: false,
  });
  const tools = advertisedTools(fullTools);
  const prefixes = messages.flatMap((message, index) =>
    message.role === "assistant" ? [messages.slice(0, index)] : [],
  );
  const started = performance.now();
  for (const prefix of prefixes) {
    const result = streamText({
      model: model.language,
      system: model.system(system),
      messages: model.messages(prefix),
      tools,
      maxRetries: 0,
      onError: () => {},
    });
    await result.consumeStream();
  }
  return (performance.now() - started) / prefixes.length;
}
