/**
 * `bash`: a shell command in the worktree, in the operating-system sandbox (it writes the worktree and
 * temporary files only), through runCommand (own process group, tagged for the survivor
 * sweep, killed with everything it started on timeout or abort). Output is stdout and stderr merged in
 * arrival order; the whole of it is also written to a log in the scratch folder, which `read` can open
 * when the returned text was cut.
 */
import { dirname, join } from "node:path";
import { z } from "zod";
import { runCommand } from "../../process/run-command.ts";
import type { SandboxPlan } from "../../sandbox/sandbox-plan.ts";
import { turnSandboxPlan } from "../../sandbox/turn-sandbox.ts";
import { bashDescription } from "../prompts/tool-descriptions.ts";
import { defineTool, failed, type ToolContext, type ToolOutcome } from "./tool-contract.ts";

const inputSchema = z
  .object({
    command: z.string().min(1).describe("the shell command"),
    timeout: z.number().positive().max(600).optional().describe("seconds (default 120, at most 600)"),
  })
  .strict();

const defaultTimeoutSeconds = 120;
/** Output kept in memory per command; the log keeps everything. */
const keptOutputChars = 1024 * 1024;

export const bashTool = defineTool({
  name: "bash",
  description: bashDescription,
  inputSchema,
  summarize: (input) => input.command,
  run: (input, context) =>
    runInWorktree(
      {
        command: input.command,
        timeoutSeconds: input.timeout ?? defaultTimeoutSeconds,
        sandbox: turnSandboxPlan({
          readOnly: false,
          cwd: context.workspace.root,
          turnDirectory: dirname(context.workspace.scratch),
          env: context.env,
        }),
      },
      context,
    ),
});

/**
 * Runs a shell command, or `argv` without a shell, in the operating-system sandbox `sandbox` when there
 * is one, and reports its output and how it ended.
 */
export async function runInWorktree(
  command: { command: string; argv?: string[]; timeoutSeconds: number; sandbox?: SandboxPlan },
  context: ToolContext,
): Promise<ToolOutcome> {
  const logPath = join(context.workspace.scratch, `${context.stepId}.log`);
  let output = "";
  const outcome = await runCommand({
    command: command.command,
    argv: command.argv,
    cwd: context.workspace.root,
    env: context.env,
    timeoutMs: command.timeoutSeconds * 1000,
    sandbox: command.sandbox,
    signal: context.signal,
    logPath,
    runId: context.runId,
    stepId: context.stepId,
    onOutput: (chunk) => {
      output += chunk;
      if (output.length > 2 * keptOutputChars) output = output.slice(-keptOutputChars);
    },
  });
  if (outcome.spawnError) return failed(`the command could not start: ${outcome.spawnError}`);
  const ending = outcome.timedOut
    ? `[timed out after ${command.timeoutSeconds} s: the command and everything it started were killed]`
    : outcome.cancelled
      ? "[stopped: the run was cancelled]"
      : outcome.exitCode === null
        ? `[killed by ${outcome.signal}]`
        : `[exit code ${outcome.exitCode}]`;
  const text = output === "" ? ending : `${output.replace(/\n$/, "")}\n${ending}`;
  return {
    ok: outcome.exitCode === 0,
    text,
    keep: "tail",
    readMore: (shown) =>
      `The whole output is in ${logPath}; read it (lines 1-${shown.first - 1} were cut) to see the rest.`,
  };
}
