/**
 * The `claude` command line for one turn (pure). Facts behind each choice were checked with the real
 * CLI (2.1.197) as root and as an unprivileged user:
 * - Headless: `-p` with the prompt on stdin (a brief can outgrow one argv string), stream-json output
 *   (needs `--verbose`), and `--include-partial-messages`: only its `message_delta` events carry a
 *   message's real output tokens, which the live cost watchdog needs.
 * - `--no-session-persistence`: no session files pile up under the user's ~/.claude.
 * - Hooks: `--settings {"disableAllHooks":true}` wins over user, project and local settings, so a
 *   repository with loopwright's hook mode installed (.claude/settings.json) never calls loopwright
 *   back, and no other hook fires in an unattended turn. Everything else of the user's configuration
 *   stays (auth, CLAUDE.md, permissions, MCP). `--bare` would also skip hooks but ignores OAuth logins;
 *   `--setting-sources user` would drop the project's settings and still run the user's hooks.
 * - Maker: `--permission-mode acceptEdits --allowedTools Bash` lets it Write, Edit and run commands
 *   without prompts, as root too (the bypass modes are refused as root unless IS_SANDBOX=1).
 * - Verifier and replanner: `--tools Read,Grep,Glob` is the whole advertised tool set, so the session
 *   cannot write or run anything, whatever the user's allow rules say (a Bash tool, even in the default
 *   permission mode, is only as read-only as those rules). `--add-dir` opens the gate logs and the diff
 *   outside the worktree for reading. `--json-schema` adds the StructuredOutput tool for the answer.
 * - `--max-budget-usd`: the CLI's own stop at the turn's cap, priced by the CLI (it knows its models'
 *   prices); the watchdog stops the turn live as well, whichever comes first.
 * - The spec's `model` and `args` come last, so a user can add any flag.
 */

import type { TurnRequest } from "../../core/engine.ts";
import type { EngineSpec } from "../../core/spec.ts";

/** Flag settings that switch off every Claude Code hook for the session. */
export const hooksOffSettings = JSON.stringify({ disableAllHooks: true });

/** The tools of a read-only session (the schema option adds StructuredOutput). */
export const readOnlyTools = "Read,Grep,Glob";

export interface ClaudeCodeTurnShape {
  readOnly: boolean;
  outputSchema?: unknown;
  maxCostUsd: number;
}

/** The arguments after `claude`; `readableDirectories` are opened for reading in read-only roles. */
export function claudeCodeArguments(
  request: ClaudeCodeTurnShape | TurnRequest,
  spec: Pick<EngineSpec, "model" | "args">,
  readableDirectories: string[] = [],
): string[] {
  const argv = [
    "-p",
    "--output-format",
    "stream-json",
    "--verbose",
    "--include-partial-messages",
    "--no-session-persistence",
    "--settings",
    hooksOffSettings,
  ];
  if (request.readOnly) {
    argv.push("--permission-mode", "default", "--tools", readOnlyTools);
    for (const directory of readableDirectories) argv.push("--add-dir", directory);
  } else {
    argv.push("--permission-mode", "acceptEdits", "--allowedTools", "Bash");
  }
  if (request.outputSchema !== undefined) argv.push("--json-schema", JSON.stringify(request.outputSchema));
  if (request.maxCostUsd > 0) argv.push("--max-budget-usd", String(request.maxCostUsd));
  if (spec.model) argv.push("--model", spec.model);
  argv.push(...(spec.args ?? []));
  return argv;
}
