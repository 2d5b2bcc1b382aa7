/**
 * `hook pre-tool` (PreToolUse on Write, Edit, MultiEdit, NotebookEdit and Bash): denies the agent any
 * write into `.loopwright/` (see state-folder-guard.ts); lets every other call go on untouched.
 */
import type { HookContext } from "../hook-context.ts";
import { denyTool, type HookOutput, passOn } from "../hook-io.ts";
import { stateFolderVerdict } from "../work/state-folder-guard.ts";

export async function preToolHook(context: HookContext): Promise<HookOutput> {
  const { input, layout } = context;
  const verdict = stateFolderVerdict(
    input.tool_name ?? "",
    input.tool_input ?? {},
    layout.root,
    input.cwd ?? layout.root,
  );
  return verdict.kind === "deny" ? denyTool(verdict.why) : passOn();
}
