/**
 * Hook mode's hooks in the project's Claude Code settings are not the agent's to take out: Claude Code
 * reads hooks when a session starts, so hooks removed by the agent would stop from the next session on,
 * without a word (a hook that does not run cannot say so). A Write whose new settings lack hook mode's
 * commands, an Edit or MultiEdit that drops one, and a Bash command that names the settings files and
 * does not only read them, are denied where hook mode is installed. Other edits of the settings pass.
 */

import { join, resolve } from "node:path";
import { readFileSync } from "../../files/node-fs.ts";
import { isHookModeCommand } from "../install/hook-command.ts";

const settingsFiles = [".claude/settings.json", ".claude/settings.local.json"];
/** The mark of a hook-mode command in any text (the launcher's path). */
const commandMark = /\.loopwright\/hook\b/g;

/** Why the file tool call would take hook mode's hooks out of the settings; undefined when it would not. */
export function settingsWriteProblem(
  toolName: string,
  toolInput: Record<string, unknown>,
  root: string,
  cwd: string,
): string | undefined {
  const target = typeof toolInput.file_path === "string" ? resolve(cwd, toolInput.file_path) : undefined;
  const file = settingsFiles.find((path) => join(root, path) === target);
  if (!file || !holdsHookMode(readText(join(root, file)))) return undefined;
  const problem = `${toolName} of ${file} that takes hook mode's hooks out`;
  const drops = (before: unknown, after: unknown) => (marks(before) > marks(after) ? problem : undefined);
  if (toolName === "Write") return holdsHookMode(String(toolInput.content ?? "")) ? undefined : problem;
  if (toolName === "Edit") return drops(toolInput.old_string, toolInput.new_string);
  if (toolName === "MultiEdit" && Array.isArray(toolInput.edits))
    for (const edit of toolInput.edits as { old_string?: unknown; new_string?: unknown }[]) {
      const problem = drops(edit?.old_string, edit?.new_string);
      if (problem) return problem;
    }
  return undefined;
}

/** True when a Bash command names one of the settings files (the caller decides whether it only reads). */
export function namesSettings(plainCommand: string): boolean {
  return /\.claude\/settings(\.local)?\.json/.test(plainCommand);
}

/** True when the project's settings hold hook mode's hooks (so the guard protects them). */
export function settingsHoldHookMode(root: string): boolean {
  return settingsFiles.some((path) => holdsHookMode(readText(join(root, path))));
}

function holdsHookMode(text: string | undefined): boolean {
  return text?.split("\n").some((line) => isHookModeCommand(`${line} `)) ?? false;
}

function marks(text: unknown): number {
  return typeof text === "string" ? (text.match(commandMark) ?? []).length : 0;
}

function readText(path: string): string | undefined {
  try {
    return readFileSync(path, "utf8");
  } catch {
    return undefined;
  }
}
