/**
 * What the built-in agent's tests share: the model id and environment that point each wire protocol's
 * provider at a mock-model server, a temporary workspace, and `runScenario`, which runs the real agent
 * loop over real HTTP and collects its events.
 */
import { mkdir, mkdtemp, realpath, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { runAgent } from "../../src/agent/agent-loop.ts";
import type { AgentConfiguration, AgentEvent, AgentResult } from "../../src/agent/agent-types.ts";
import { buildSystemPrompt } from "../../src/agent/prompts/system-prompt.ts";
import { createAgentModel } from "../../src/agent/providers.ts";
import { fullTools, readOnlyTools } from "../../src/agent/tools/tool-sets.ts";
import type { ScriptInput } from "../../src/mock-model/script.ts";

export type Protocol = "anthropic" | "responses" | "chat";
export const protocols: Protocol[] = ["anthropic", "responses", "chat"];
export type ConversationInput = NonNullable<ScriptInput["conversations"]>[number];
export type TurnInput = ConversationInput["turns"][number];

/** The model id and environment that reach `url` (the mock server's base) over `protocol`. */
export function modelFor(protocol: Protocol, url: string): { id: string; env: Record<string, string> } {
  switch (protocol) {
    case "anthropic":
      return { id: "anthropic:mock-model", env: { ANTHROPIC_BASE_URL: url, ANTHROPIC_API_KEY: "mock-key" } };
    case "responses":
      return { id: "openai:mock-model", env: { OPENAI_BASE_URL: `${url}/v1`, OPENAI_API_KEY: "mock-key" } };
    case "chat":
      return { id: `openai-compatible:mock-model@${url}/v1`, env: {} };
  }
}

/** The marker that selects a scenario's conversation: it opens the prompt. */
export const marker = (protocol: Protocol, name: string) => `[scenario ${protocol}/${name}]`;

export const conversation = (protocol: Protocol, name: string, turns: TurnInput[]): ConversationInput => ({
  name: `${protocol}/${name}`,
  when: { contains: marker(protocol, name) },
  turns,
});

export interface Workspace {
  root: string;
  scratch: string;
  write(files: Record<string, string>): Promise<void>;
  cleanup(): Promise<void>;
}

export async function createWorkspace(files: Record<string, string> = {}): Promise<Workspace> {
  const base = await realpath(await mkdtemp(join(tmpdir(), "loopwright-agent-")));
  const root = join(base, "work");
  const scratch = join(base, "scratch");
  await mkdir(root);
  await mkdir(scratch);
  const write = async (entries: Record<string, string>) => {
    for (const [path, content] of Object.entries(entries)) {
      await mkdir(dirname(join(root, path)), { recursive: true });
      await writeFile(join(root, path), content);
    }
  };
  await write(files);
  return { root, scratch, write, cleanup: () => rm(base, { recursive: true, force: true }) };
}

export interface ScenarioRun {
  result: AgentResult;
  events: AgentEvent[];
}

/** Runs the agent on `marker(protocol, name)` plus `task`, in `workspace`, against the server at `url`. */
export async function runScenario(
  options: {
    protocol: Protocol;
    url: string;
    name: string;
    workspace: Workspace;
    task?: string;
    readOnly?: boolean;
    contextWindow?: number;
  } & Partial<Pick<AgentConfiguration, "maxTurns" | "maxCostUsd" | "timeoutMs" | "signal" | "answerSchema">>,
): Promise<ScenarioRun> {
  const { id, env } = modelFor(options.protocol, options.url);
  const tools = options.readOnly ? readOnlyTools : fullTools;
  const events: AgentEvent[] = [];
  const result = await runAgent({
    model: createAgentModel(id, { env, contextWindow: options.contextWindow }),
    prompt: `${marker(options.protocol, options.name)} ${options.task ?? "Do the task."}`,
    system: buildSystemPrompt({
      workingDirectory: options.workspace.root,
      readOnly: options.readOnly ?? false,
      toolNames: tools.map((tool) => tool.name),
      structuredAnswer: options.answerSchema !== undefined,
    }),
    tools: [...tools],
    workspace: { root: options.workspace.root, readable: [], scratch: options.workspace.scratch },
    maxTurns: options.maxTurns ?? 0,
    maxCostUsd: options.maxCostUsd ?? 0,
    timeoutMs: options.timeoutMs ?? 30_000,
    answerSchema: options.answerSchema,
    signal: options.signal,
    onEvent: (event) => events.push(event),
    runId: "agent-test",
    stepId: `${options.protocol}-${options.name}`,
  });
  return { result, events };
}
