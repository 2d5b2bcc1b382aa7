/**
 * `run`: the read-only session's only way to run something: one allowlisted command, split into argv
 * and run without a shell, with every path argument confined to the readable folders; then, where the
 * operating system has a sandbox, run in it read-only, so that what the allowlist misses still writes
 * nothing. Git runs without optional locks and with the configuration that runs programs switched off.
 */
import { dirname } from "node:path";
import { z } from "zod";
import { turnSandboxPlan } from "../../sandbox/turn-sandbox.ts";
import { runDescription } from "../prompts/tool-descriptions.ts";
import { runInWorktree } from "./bash-tool.ts";
import { describeAllowed, pathArguments, refusal, splitCommandLine } from "./command-allowlist.ts";
import { defineTool, failed } from "./tool-contract.ts";
import { resolveReadable } from "./workspace-paths.ts";

const inputSchema = z
  .object({ command: z.string().min(1).describe('one command, e.g. "git diff HEAD~1 --stat"') })
  .strict();

/** `git -c` settings as environment: no pager, no fsmonitor, no hooks, no index refresh. */
const gitWithoutSideEffects: Record<string, string> = {
  GIT_OPTIONAL_LOCKS: "0",
  GIT_PAGER: "cat",
  GIT_CONFIG_COUNT: "3",
  GIT_CONFIG_KEY_0: "core.fsmonitor",
  GIT_CONFIG_VALUE_0: "false",
  GIT_CONFIG_KEY_1: "core.pager",
  GIT_CONFIG_VALUE_1: "cat",
  GIT_CONFIG_KEY_2: "core.hooksPath",
  GIT_CONFIG_VALUE_2: "/dev/null",
};

/** Git subcommands that would run a configured external diff or textconv program, and the options that stop it. */
const diffingSubcommands = new Set(["diff", "log", "show"]);

/** `argv` with `--no-ext-diff --no-textconv` after a diffing git subcommand. */
function withoutDiffPrograms(argv: string[]): string[] {
  if (argv[0] !== "git" || !diffingSubcommands.has(argv[1])) return argv;
  return [argv[0], argv[1], "--no-ext-diff", "--no-textconv", ...argv.slice(2)];
}

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
    const { workspace } = context;
    const sandbox = turnSandboxPlan({
      readOnly: true,
      cwd: workspace.root,
      turnDirectory: dirname(workspace.scratch),
      evidence: [...workspace.readable, workspace.scratch],
      env: context.env,
    });
    return runInWorktree(
      { command: input.command, argv: withoutDiffPrograms(parsed.argv), timeoutSeconds: 60, sandbox },
      { ...context, env: { ...context.env, ...gitWithoutSideEffects } },
    );
  },
});
