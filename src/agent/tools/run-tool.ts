/**
 * `run`: the read-only session's only way to run something: one allowlisted command, split into argv
 * and run without a shell, with every path argument confined to the readable folders.
 */
import { z } from "zod";
import { runDescription } from "../prompts/tool-descriptions.ts";
import { runInWorktree } from "./bash-tool.ts";
import { describeAllowed, pathArguments, refusal, splitCommandLine } from "./command-allowlist.ts";
import { defineTool, failed } from "./tool-contract.ts";
import { resolveReadable } from "./workspace-paths.ts";

const inputSchema = z
  .object({ command: z.string().min(1).describe('one command, e.g. "git diff HEAD~1 --stat"') })
  .strict();

export const runTool = defineTool({
  name: "run",
  description: runDescription(describeAllowed()),
  inputSchema,
  summarize: (input) => input.command,
  async run(input, context) {
    const parsed = splitCommandLine(input.command);
    if (!parsed.ok) return failed(`${parsed.error}.`);
    const refused = refusal(parsed.argv);
    if (refused) return failed(`${refused}.`);
    for (const path of pathArguments(parsed.argv)) {
      const resolved = await resolveReadable(context.workspace, path);
      if (!resolved.ok) return failed(resolved.error);
    }
    return runInWorktree({ command: input.command, argv: parsed.argv, timeoutSeconds: 60 }, context);
  },
});
