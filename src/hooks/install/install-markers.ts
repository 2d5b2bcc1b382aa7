/**
 * Whether hook mode is installed in a checkout, read from what is there (the install record may be
 * gone after `git clean -fdx`): the project's Claude Code settings call a hook-mode command, CLAUDE.md
 * holds the managed section, the install record exists, or HEAD holds a loop.yaml that the working
 * tree lost. Read on the hot path only when the spec is missing, or for the plugin's check.
 */

import { join } from "node:path";
import { existsSync, readFileSync } from "../../files/node-fs.ts";
import { gitResult } from "../../git/git.ts";
import type { HookLayout } from "../hook-layout.ts";
import { sectionBegin } from "../templates/definition-of-done.ts";
import { isHookModeCommand } from "./hook-command.ts";

const projectSettings = [".claude/settings.json", ".claude/settings.local.json"];

/** True when the project's own settings (shared or local) run hook mode's hooks. */
export function projectHooksInstalled(root: string): boolean {
  return projectSettings.some((path) => {
    let settings: unknown;
    try {
      settings = JSON.parse(readFileSync(join(root, path), "utf8"));
    } catch {
      return false;
    }
    const hooks = (settings as { hooks?: unknown })?.hooks;
    if (typeof hooks !== "object" || hooks === null) return false;
    return Object.values(hooks).some(
      (groups) =>
        Array.isArray(groups) &&
        groups.some(
          (group) =>
            Array.isArray(group?.hooks) &&
            group.hooks.some(
              (hook: { command?: unknown }) =>
                typeof hook?.command === "string" && isHookModeCommand(hook.command),
            ),
        ),
    );
  });
}

/** True when hook mode was set up in this checkout, whatever is left of it. */
export async function hookModeInstalled(layout: HookLayout): Promise<boolean> {
  if (existsSync(layout.installRecord) || projectHooksInstalled(layout.root)) return true;
  try {
    if (readFileSync(join(layout.root, "CLAUDE.md"), "utf8").includes(sectionBegin)) return true;
  } catch {
    // No CLAUDE.md.
  }
  const tracked = await gitResult(["cat-file", "-e", "HEAD:loop.yaml"], layout.root).catch(() => undefined);
  return tracked?.code === 0;
}
