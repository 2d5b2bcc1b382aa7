/**
 * Runs one tool call the model made and turns whatever happens into a result the model can act on: an
 * unknown tool, arguments that fail the tool's schema, a tool failure and an unexpected exception all
 * become an error result saying how to correct the call. Every output passes through truncate-output.ts.
 */
import type { z } from "zod";
import type { RequestedToolCall } from "../model-call.ts";
import { type TruncationLimits, truncateOutput } from "../truncate-output.ts";
import type { AgentTool, ToolContext, ToolOutcome } from "./tool-contract.ts";

export interface ToolResult {
  ok: boolean;
  /** What the model reads, already within the limits. */
  text: string;
}

export async function runToolCall(
  call: RequestedToolCall,
  tools: readonly AgentTool[],
  context: ToolContext,
  limits: TruncationLimits,
): Promise<ToolResult> {
  const outcome = await outcomeOf(call, tools, context);
  const readMore = outcome.readMore ?? (() => "Narrow the request to see the rest.");
  return { ok: outcome.ok, text: truncateOutput(outcome.text, limits, outcome.keep ?? "head", readMore) };
}

async function outcomeOf(
  call: RequestedToolCall,
  tools: readonly AgentTool[],
  context: ToolContext,
): Promise<ToolOutcome> {
  const tool = tools.find((candidate) => candidate.name === call.name);
  if (!tool)
    return {
      ok: false,
      text: `There is no tool named "${call.name}". The tools are: ${tools.map((candidate) => candidate.name).join(", ")}. Call one of them by its exact name.`,
    };
  const parsed = tool.inputSchema.safeParse(call.input);
  if (!parsed.success)
    return {
      ok: false,
      text: `Invalid arguments for ${tool.name}: ${describeIssues(parsed.error)}. Call ${tool.name} again with arguments that match its schema.`,
    };
  try {
    return await tool.run(parsed.data, context);
  } catch (error) {
    return { ok: false, text: `${tool.name} failed: ${describeException(error)}` };
  }
}

function describeIssues(error: z.ZodError): string {
  return error.issues
    .map((issue) => {
      const field = issue.path.length > 0 ? issue.path.join(".") : "arguments";
      return issue.code === "unrecognized_keys"
        ? `unknown field${issue.keys.length > 1 ? "s" : ""} ${issue.keys.join(", ")}`
        : `${field}: ${issue.message}`;
    })
    .join("; ");
}

/** File-system errors in words the model can act on; anything else by its message. */
function describeException(error: unknown): string {
  const failure = error as NodeJS.ErrnoException;
  const where = failure.path ? ` (${failure.path})` : "";
  switch (failure.code) {
    case "ENOENT":
      return `no such file or folder${where}; use list or glob to find the right path`;
    case "EACCES":
    case "EPERM":
      return `permission denied${where}`;
    case "EISDIR":
      return `that is a folder, not a file${where}`;
    case "ENOTDIR":
      return `a part of the path is a file, not a folder${where}`;
    default:
      return error instanceof Error ? error.message : String(error);
  }
}
