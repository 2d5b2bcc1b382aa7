/**
 * The command the project's `.claude/settings.json` runs for a hook event, and how hook mode recognises
 * its own commands. The settings are committed, but the launcher they prefer (`.loopwright/hook`,
 * pinned to a Node.js of this machine) is git-excluded: a fresh clone, a `git worktree` or `git clean
 * -fdx` has none. So the command falls back to the project's own dependency
 * (`node_modules/.bin/loopwright`), then to a `loopwright` on PATH, and else answers Claude Code with
 * a `systemMessage` that says how to restore hook mode. Pure.
 */
import { stateFolderName } from "../hook-layout.ts";

/** The launcher, relative to the project. */
export const launcherPath = `${stateFolderName}/hook`;

const restoreMessage = JSON.stringify({
  systemMessage:
    "loopwright: hook mode is set up in .claude/settings.json, but this checkout has no launcher and no loopwright (a fresh clone, a git worktree or git clean): nothing was checked. Restore it: run `loopwright init claude` here, or add loopwright as a dev dependency and install it.",
});

/** The settings' command for `event` (stop, prompt...): launcher, project dependency, PATH, or a message. */
export function projectHookCommand(event: string): string {
  const launcher = `"$CLAUDE_PROJECT_DIR"/${launcherPath}`;
  const dependency = `"$CLAUDE_PROJECT_DIR"/node_modules/.bin/loopwright`;
  return [
    `if [ -x ${launcher} ]; then exec ${launcher} ${event}; fi`,
    `if [ -x ${dependency} ]; then exec ${dependency} hook ${event}; fi`,
    `if command -v loopwright >/dev/null 2>&1; then exec loopwright hook ${event}; fi`,
    `echo '${restoreMessage}'`,
  ].join("; ");
}

/** True for a hook command hook mode wrote (this form, or the launcher-only form of earlier versions). */
export function isHookModeCommand(command: string): boolean {
  return new RegExp(`${stateFolderName.replace(".", "\\.")}/hook["'\\s]`).test(command);
}
