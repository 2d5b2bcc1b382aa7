/**
 * Hook mode's entries in a Claude Code settings object (`.claude/settings.json`, or a plugin's
 * `hooks/hooks.json`), merged in and taken out without touching anything else. Pure: objects in,
 * objects out.
 */

/** A settings file's hook entry: `{ matcher?, hooks: [{ type: "command", command, timeout? }] }`. */
export interface MatcherGroup {
  matcher?: string;
  hooks: { type: string; command?: string; timeout?: number; [key: string]: unknown }[];
  [key: string]: unknown;
}

type Settings = Record<string, unknown>;

/** The tools whose use opens the work. */
export const writeToolsMatcher = "Write|Edit|MultiEdit|NotebookEdit";
/** The tools that could write into `.loopwright/`: the PreToolUse guard looks at them. */
export const guardedToolsMatcher = `${writeToolsMatcher}|Bash`;

/** Hook mode's entries, each event calling `command(<hook event>)`. */
export function hookModeEntries(command: (event: string) => string): Record<string, MatcherGroup[]> {
  const group = (event: string, timeout: number, matcher?: string): MatcherGroup[] => [
    { ...(matcher ? { matcher } : {}), hooks: [{ type: "command", command: command(event), timeout }] },
  ];
  return {
    // Gates run in the Stop hook: give them time (Claude Code kills a hook past its timeout, in seconds).
    Stop: group("stop", 3600),
    SubagentStop: group("subagent-stop", 120),
    UserPromptSubmit: group("prompt", 60),
    PostToolUse: group("post-tool", 60, writeToolsMatcher),
    PreToolUse: group("pre-tool", 60, guardedToolsMatcher),
  };
}

/**
 * `settings` with hook mode's entries: any entry of ours already there is replaced (so a second run
 * changes nothing), every other key and hook is kept in its place.
 */
export function withHookMode(
  settings: Settings,
  entries: Record<string, MatcherGroup[]>,
  isOurs: (command: string) => boolean,
): Settings {
  const cleaned = withoutHookMode(settings, isOurs);
  const hooks = { ...((cleaned.hooks as Record<string, MatcherGroup[]> | undefined) ?? {}) };
  for (const [event, groups] of Object.entries(entries)) hooks[event] = [...(hooks[event] ?? []), ...groups];
  return { ...cleaned, hooks };
}

/**
 * `settings` without hook mode's entries: our hooks are taken out of every group, groups left empty are
 * dropped, events left empty are dropped, and `hooks` itself when nothing is left in it.
 */
export function withoutHookMode(settings: Settings, isOurs: (command: string) => boolean): Settings {
  const hooks = settings.hooks;
  if (typeof hooks !== "object" || hooks === null || Array.isArray(hooks)) return settings;
  const kept: Record<string, unknown> = {};
  for (const [event, groups] of Object.entries(hooks)) {
    if (!Array.isArray(groups)) {
      kept[event] = groups;
      continue;
    }
    const remaining = groups.flatMap((group: MatcherGroup) => {
      if (!Array.isArray(group?.hooks)) return [group];
      const others = group.hooks.filter(
        (hook) => !(typeof hook.command === "string" && isOurs(hook.command)),
      );
      if (others.length === group.hooks.length) return [group];
      return others.length > 0 ? [{ ...group, hooks: others }] : [];
    });
    if (remaining.length > 0) kept[event] = remaining;
  }
  const { hooks: _hooks, ...rest } = settings;
  return Object.keys(kept).length > 0 ? { ...rest, hooks: kept } : rest;
}
