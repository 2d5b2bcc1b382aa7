/**
 * What a tool of the built-in agent is: a name, a description the model reads (prompts/tool-descriptions.ts),
 * a zod schema its arguments are validated with before it runs, and `run`. A tool never throws for a
 * failure the model can fix: it returns `ok: false` with a text saying how to fix the call. Anything it
 * does throw is turned into such a result by run-tool-call.ts.
 */
import type { z } from "zod";
import type { Workspace } from "../agent-types.ts";
import type { ShownLines } from "../truncate-output.ts";

export interface ToolContext {
  workspace: Workspace;
  /** Aborted when the run is cancelled or out of time: stop and return. */
  signal: AbortSignal;
  runId: string;
  /** Unique per tool call: processes a call starts are tagged with it. */
  stepId: string;
  env?: Record<string, string>;
}

export interface ToolOutcome {
  ok: boolean;
  text: string;
  /** Which end of a long output matters (default head: a file's start; tail: a command's end). */
  keep?: "head" | "tail";
  /** How the model reads what truncation cut, given the lines it was shown. */
  readMore?: (shown: ShownLines) => string;
}

export interface AgentTool<Input = unknown> {
  name: string;
  description: string;
  inputSchema: z.ZodType<Input>;
  /** One line about a call for the live stream (a path, a command). */
  summarize(input: Input): string;
  run(input: Input, context: ToolContext): Promise<ToolOutcome>;
}

/** Erases a tool's input type so tools of different inputs share a list; `run` only sees validated input. */
export function defineTool<Input>(tool: AgentTool<Input>): AgentTool {
  return tool as unknown as AgentTool;
}

export const failed = (text: string): ToolOutcome => ({ ok: false, text });
