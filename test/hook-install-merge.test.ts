/** Merging hook mode into a user's settings and CLAUDE.md, and taking it back out (pure). */
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { isHookModeCommand, projectHookCommand } from "../src/hooks/install/hook-command.ts";
import { withoutSection, withSection } from "../src/hooks/install/managed-section.ts";
import { hookModeEntries, withHookMode, withoutHookMode } from "../src/hooks/install/settings-hooks.ts";
import { sectionBegin, sectionEnd } from "../src/hooks/templates/definition-of-done.ts";

const entries = hookModeEntries(projectHookCommand);
const userStop = { hooks: [{ type: "command", command: "./my-stop.sh" }] };

describe("settings hooks", () => {
  const userSettings = {
    permissions: { allow: ["Bash(npm test)"] },
    hooks: {
      Stop: [userStop],
      PreToolUse: [{ matcher: "Bash", hooks: [{ type: "command", command: "./guard.sh" }] }],
    },
  };

  test("adds the five events after the user's own hooks and keeps every other setting", () => {
    const merged = withHookMode(userSettings, entries, isHookModeCommand) as typeof userSettings & {
      hooks: Record<string, { matcher?: string; hooks: { command: string }[] }[]>;
    };
    assert.deepEqual(merged.permissions, userSettings.permissions);
    assert.deepEqual(merged.hooks.PreToolUse[0], userSettings.hooks.PreToolUse[0]);
    assert.equal(merged.hooks.PreToolUse[1].matcher, "Write|Edit|MultiEdit|NotebookEdit|Bash");
    assert.deepEqual(merged.hooks.Stop[0], userStop);
    assert.match(
      merged.hooks.Stop[1].hooks[0].command,
      /^if \[ -x "\$CLAUDE_PROJECT_DIR"\/\.loopwright\/hook \]; then exec .* stop;/,
    );
    assert.equal(merged.hooks.PostToolUse[0].matcher, "Write|Edit|MultiEdit|NotebookEdit");
    assert.deepEqual(Object.keys(merged.hooks).sort(), [
      "PostToolUse",
      "PreToolUse",
      "Stop",
      "SubagentStop",
      "UserPromptSubmit",
    ]);
  });

  test("merging twice is merging once", () => {
    const once = withHookMode(userSettings, entries, isHookModeCommand);
    assert.deepEqual(withHookMode(once, entries, isHookModeCommand), once);
  });

  test("taking it out gives the settings back, whatever they held", () => {
    for (const settings of [{}, userSettings, { hooks: {} }, { model: "opus", hooks: { Stop: [] } }]) {
      const merged = withHookMode(settings, entries, isHookModeCommand);
      const { hooks, ...rest } = settings as { hooks?: Record<string, unknown[]> };
      const nonEmpty = Object.fromEntries(
        Object.entries(hooks ?? {}).filter(([, groups]) => groups.length > 0),
      );
      const expected = Object.keys(nonEmpty).length > 0 ? { ...rest, hooks: nonEmpty } : rest;
      assert.deepEqual(withoutHookMode(merged, isHookModeCommand), expected);
    }
  });

  test("a group the user shares with one of ours keeps the user's hook", () => {
    const shared = {
      hooks: { Stop: [{ hooks: [{ type: "command", command: "./mine.sh" }, entries.Stop[0].hooks[0]] }] },
    };
    assert.deepEqual(withoutHookMode(shared, isHookModeCommand), {
      hooks: { Stop: [{ hooks: [{ type: "command", command: "./mine.sh" }] }] },
    });
  });
});

describe("managed section", () => {
  const section = `${sectionBegin}\n## Definition of Done\n1. tests pass\n${sectionEnd}\n`;

  test("appends after a blank line and comes back out exactly", () => {
    for (const text of ["# Project\n\nUse pnpm.\n", "ends with a blank\n\n", "\n"]) {
      const added = withSection(text, section);
      assert.ok(added.startsWith(text));
      assert.ok(added.endsWith(`\n\n${section}`));
      assert.equal(withoutSection(added), text);
    }
    assert.equal(withoutSection(withSection("no final newline", section)), "no final newline\n");
  });

  test("a new file is the section alone; a second run replaces it in place", () => {
    assert.equal(withSection(undefined, section), section);
    const text = `${withSection("intro\n", section)}\n## Later notes\n`;
    const updated = withSection(text, section.replace("tests pass", "tests and lint pass"));
    assert.match(updated, /tests and lint pass/);
    assert.doesNotMatch(updated, /1\. tests pass/);
    assert.ok(updated.endsWith("\n## Later notes\n"));
  });

  test("text without the section is left alone", () => {
    assert.equal(withoutSection("# nothing of ours\n"), "# nothing of ours\n");
  });
});
