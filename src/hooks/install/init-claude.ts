/**
 * `loopwright init claude [--remove]`: sets hook mode up in the user's checkout, merging into what is
 * there and never clobbering it:
 * - `.claude/settings.json`: Stop, SubagentStop, UserPromptSubmit and PostToolUse (writes) hooks that
 *   call the launcher; every other setting and hook stays;
 * - `.claude/agents/loopwright-reviewer.md`: the read-only reviewer subagent;
 * - CLAUDE.md: a Definition of Done section naming the gates of loop.yaml;
 * - LESSONS.md when the project has none;
 * - `.loopwright/hook`: the launcher pinned to this Node.js, checked by running it once;
 * - `/.loopwright/` in the repository's `info/exclude`.
 * Running it again updates loopwright's parts in place. `--remove` takes exactly those back out (see
 * install-record.ts) and deletes `.loopwright/`.
 */

import { chmod } from "node:fs/promises";
import { dirname, join, relative, resolve } from "node:path";
import { isDeepStrictEqual } from "node:util";
import { UsageError } from "../../errors.ts";
import {
  existsSync,
  mkdirSync,
  readFileSync,
  rmdirSync,
  rmSync,
  unlinkSync,
  writeFileSync,
} from "../../files/node-fs.ts";
import { gitResult } from "../../git/git.ts";
import { reviewerAgentName } from "../hook-context.ts";
import {
  ensureStateFolder,
  excludeFilePath,
  excludeLine,
  hookLayout,
  stateFolderName,
} from "../hook-layout.ts";
import { parseHookSpec } from "../hook-spec.ts";
import { definitionOfDone } from "../templates/definition-of-done.ts";
import { launcherScript } from "../templates/launcher-script.ts";
import { lessonsFile } from "../templates/lessons-file.ts";
import { reviewerAgent, reviewerMarker } from "../templates/reviewer-agent.ts";
import { hookLimits } from "../work/deferred-work.ts";
import { isHookModeCommand, projectHookCommand } from "./hook-command.ts";
import {
  type FileChange,
  type InstallRecord,
  readInstallRecord,
  writeInstallRecord,
} from "./install-record.ts";
import { formatJsonLike } from "./json-format.ts";
import { checkLauncher, pinnedNode } from "./launcher.ts";
import { withoutSection, withSection } from "./managed-section.ts";
import { enabledLoopwrightPlugins } from "./plugin-enabled.ts";
import { hookModeEntries, withHookMode, withoutHookMode } from "./settings-hooks.ts";

export const settingsPath = ".claude/settings.json";
export const agentPath = `.claude/agents/${reviewerAgentName}.md`;
export const instructionsPath = "CLAUDE.md";
export const lessonsPath = "LESSONS.md";

export interface InitClaudeResult {
  root: string;
  /** What was done, one line each, for the user. */
  lines: string[];
}

export async function installHookMode(directory: string): Promise<InitClaudeResult> {
  const root = await checkoutRoot(directory);
  const layout = hookLayout(root);
  if (!existsSync(layout.spec))
    throw new UsageError(
      `no loop.yaml at ${root}: run \`loopwright init\` there first (it detects your test, build and lint commands), then \`loopwright init claude\``,
    );
  const previous = readInstallRecord(layout.installRecord);
  const excludePath = relative(root, await excludeFilePath(root));
  // Read before anything is written: the first hook-mode write (the spec cache) also touches info/exclude.
  const originals = new Map(
    [settingsPath, agentPath, instructionsPath, lessonsPath, excludePath].map((path) => [
      path,
      readText(join(root, path)),
    ]),
  );
  const current = (path: string) => originals.get(path);
  const spec = await parseHookSpec(readFileSync(layout.spec, "utf8"), root);
  const settingsText = current(settingsPath);
  const settings = parseSettings(settingsText);
  const merged = withHookMode(settings, hookModeEntries(projectHookCommand), isHookModeCommand);
  const agentText = current(agentPath);
  if (agentText !== undefined && !agentText.includes(reviewerMarker))
    throw new UsageError(
      `${agentPath} exists and is not loopwright's: move it away, then run init claude again`,
    );
  const lessonsText = current(lessonsPath);
  const excludeText = current(excludePath) ?? "";

  const planned: Record<string, string> = {
    [settingsPath]:
      settingsText !== undefined && isDeepStrictEqual(merged, settings)
        ? settingsText
        : formatJsonLike(settingsText, merged),
    [agentPath]: reviewerAgent(reviewerAgentName),
    [instructionsPath]: withSection(
      current(instructionsPath),
      definitionOfDone({
        gates: spec.gates,
        limits: hookLimits(process.env),
        reviewerAgent: reviewerAgentName,
        closeCommand: `${stateFolderName}/hook close`,
      }),
    ),
    [excludePath]: excludeText.split("\n").some((line) => line.trim() === excludeLine)
      ? excludeText
      : `${excludeText}${excludeText === "" || excludeText.endsWith("\n") ? "" : "\n"}${excludeLine}\n`,
  };
  // LESSONS.md is written once: later runs never touch the lessons, and keep the record of the first.
  if (lessonsText === undefined) planned[lessonsPath] = lessonsFile();

  // The launcher first: if it cannot run, nothing of the user's is touched.
  const hadStateFolder = existsSync(layout.directory);
  await ensureStateFolder(layout);
  const pinned = pinnedNode();
  writeFileSync(
    layout.launcher,
    launcherScript({ node: pinned.node, nodeVersion: pinned.version, entry: pinned.entry }),
  );
  await chmod(layout.launcher, 0o755);
  const version = await checkLauncher(layout.launcher).catch((error: unknown) => {
    if (!hadStateFolder) {
      rmSync(layout.directory, { recursive: true, force: true });
      writeFileSync(join(root, excludePath), excludeText);
    }
    throw error;
  });

  const createdFolders = new Set(previous?.createdFolders ?? []);
  for (const folder of [".claude", ".claude/agents"])
    if (!existsSync(join(root, folder))) createdFolders.add(folder);
  const files: Record<string, FileChange> = {};
  const lessonsRecord = previous?.files[lessonsPath];
  if (lessonsText !== undefined && lessonsRecord) files[lessonsPath] = lessonsRecord;
  const lines: string[] = [];
  for (const [path, content] of Object.entries(planned)) {
    const before = current(path);
    const recorded = previous?.files[path];
    files[path] = { before: recorded ? recorded.before : (before ?? null), after: content };
    if (before === content) continue;
    mkdirSync(dirname(join(root, path)), { recursive: true });
    writeFileSync(join(root, path), content);
    lines.push(`${before === undefined ? "wrote" : "updated"} ${path}`);
  }
  const sorted = Object.fromEntries(
    Object.entries(files).sort(([left], [right]) => left.localeCompare(right)),
  );
  writeInstallRecord(layout.installRecord, {
    version: 1,
    files: sorted,
    createdFolders: [...createdFolders].sort(),
  });
  const gates = spec.gates.filter((gate) => gate.run).map((gate) => `${gate.id} (${gate.timing})`);
  lines.push(
    `launcher ${relative(root, layout.launcher)}: Node.js ${version} at ${pinned.node}, loopwright at ${pinned.entry}`,
    `gates: ${gates.join(", ") || "none yet (add some to loop.yaml, then run init claude again)"}`,
  );
  if (lines.length === 2) lines.unshift("hook mode was already set up; nothing changed");
  for (const plugin of enabledLoopwrightPlugins(root))
    lines.push(
      `the plugin ${plugin} is enabled too: in this checkout its hooks step aside for the project's, so each hook runs once`,
    );
  return { root, lines };
}

export async function removeHookMode(directory: string): Promise<InitClaudeResult> {
  const root = await checkoutRoot(directory);
  const layout = hookLayout(root);
  const record: InstallRecord | undefined = readInstallRecord(layout.installRecord);
  const excludePath = relative(root, await excludeFilePath(root));
  const lines: string[] = [];
  for (const path of [settingsPath, agentPath, instructionsPath, lessonsPath, excludePath]) {
    const absolute = join(root, path);
    const text = readText(absolute);
    if (text === undefined) continue;
    const change = record?.files[path];
    const next = change && text === change.after ? change.before : takeOut(path, text, change, excludePath);
    if (next === text) {
      if (path === lessonsPath && change) lines.push(`kept ${path}: it holds lessons added since`);
      continue;
    }
    if (next === null) unlinkSync(absolute);
    else writeFileSync(absolute, next);
    lines.push(`${next === null ? "deleted" : "restored"} ${path}`);
  }
  // Without the record, the folders init claude may have created go if they are empty.
  const created = record ? record.createdFolders : [".claude/agents", ".claude"];
  const folders = [...created].sort((left, right) => right.length - left.length);
  for (const folder of folders) removeIfEmpty(join(root, folder));
  if (existsSync(layout.directory)) {
    rmSync(layout.directory, { recursive: true, force: true });
    lines.push(`deleted ${stateFolderName}/`);
  }
  if (lines.length === 0) lines.push("hook mode was not set up here; nothing changed");
  return { root, lines };
}

/**
 * `text` without loopwright's part, for a file edited since `init claude` wrote it or whose record is
 * gone (then loopwright's part is recognised by its content, and a file left with nothing but it was
 * loopwright's); null: delete it.
 */
function takeOut(
  path: string,
  text: string,
  change: FileChange | undefined,
  excludePath: string,
): string | null {
  const createdByUs = change ? change.before === null : true;
  if (path === settingsPath) {
    const settings = parseSettings(text);
    const remaining = withoutHookMode(settings, isHookModeCommand);
    if (isDeepStrictEqual(remaining, settings)) return text;
    return createdByUs && Object.keys(remaining).length === 0 ? null : formatJsonLike(text, remaining);
  }
  if (path === agentPath) return text.includes(reviewerMarker) ? null : text;
  if (path === instructionsPath) {
    const remaining = withoutSection(text);
    return remaining === text ? text : createdByUs && remaining.trim() === "" ? null : remaining;
  }
  if (path === lessonsPath) return !change && text === lessonsFile() ? null : text;
  if (path === excludePath)
    return text
      .split("\n")
      .filter((line) => line.trim() !== excludeLine)
      .join("\n");
  return text;
}

/** The top of the checkout (the linked worktree's own, not the main one) that holds `directory`. */
async function checkoutRoot(directory: string): Promise<string> {
  const result = await gitResult(["rev-parse", "--show-toplevel"], resolve(directory), { trim: true }).catch(
    () => undefined,
  );
  if (result?.code !== 0 || result.stdout === "")
    throw new UsageError(
      `not inside a git checkout: ${resolve(directory)} (hook mode works in a repository)`,
    );
  return result.stdout;
}

function parseSettings(text: string | undefined): Record<string, unknown> {
  if (text === undefined || text.trim() === "") return {};
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (error) {
    throw new UsageError(`${settingsPath} is not valid JSON (${(error as Error).message}); fix it first`);
  }
  if (typeof parsed !== "object" || parsed === null || Array.isArray(parsed))
    throw new UsageError(`${settingsPath} is not a JSON object; fix it first`);
  return parsed as Record<string, unknown>;
}

function readText(path: string): string | undefined {
  try {
    return readFileSync(path, "utf8");
  } catch {
    return undefined;
  }
}

function removeIfEmpty(folder: string): void {
  try {
    rmdirSync(folder);
  } catch {
    // Not empty (the user keeps things there) or already gone.
  }
}
