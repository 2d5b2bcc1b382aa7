/**
 * Whether the loopwright plugin is enabled for this user or project (Claude Code's `enabledPlugins` in
 * `~/.claude/settings.json` and the project's settings), so that `init claude` can say that both are
 * installed. At run time the plugin's hooks step aside where the project's are installed (hook-main.ts).
 */

import { homedir } from "node:os";
import { join } from "node:path";
import { readFileSync } from "../../files/node-fs.ts";
import { pluginName } from "./claude-plugin.ts";

/** The enabled plugin ids (`loopwright@<marketplace>`) found in the user's and the project's settings. */
export function enabledLoopwrightPlugins(root: string): string[] {
  const files = [
    join(homedir(), ".claude", "settings.json"),
    join(root, ".claude", "settings.json"),
    join(root, ".claude", "settings.local.json"),
  ];
  const found = new Set<string>();
  for (const file of files) {
    let enabled: unknown;
    try {
      enabled = (JSON.parse(readFileSync(file, "utf8")) as { enabledPlugins?: unknown }).enabledPlugins;
    } catch {
      continue;
    }
    if (typeof enabled !== "object" || enabled === null) continue;
    for (const [id, on] of Object.entries(enabled))
      if (on === true && id.startsWith(`${pluginName}@`)) found.add(id);
  }
  return [...found].sort();
}
