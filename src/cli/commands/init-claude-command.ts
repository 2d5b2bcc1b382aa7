/** `init claude [--remove] [--plugin <folder>]`: Claude Code hook mode in this checkout, or as a plugin. */
import { removeClaudePlugin, writeClaudePlugin } from "../../hooks/install/claude-plugin.ts";
import { installHookMode, removeHookMode } from "../../hooks/install/init-claude.ts";

export async function initClaudeCommand(options: { remove?: boolean; plugin?: string }): Promise<number> {
  const result = options.plugin
    ? await (options.remove ? removeClaudePlugin : writeClaudePlugin)(options.plugin)
    : await (options.remove ? removeHookMode : installHookMode)(process.cwd());
  for (const line of result.lines) process.stdout.write(`${line}\n`);
  if (!options.remove && !options.plugin)
    process.stdout.write(
      "Claude Code now checks the definition of done in this checkout; `touch .loopwright/off` pauses it.\n",
    );
  return 0;
}
