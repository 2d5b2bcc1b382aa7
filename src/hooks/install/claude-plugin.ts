/**
 * Hook mode as a Claude Code plugin, in a local marketplace folder: `loopwright init claude --plugin
 * <folder>` writes it, then `claude plugin marketplace add <folder>` and `claude plugin install
 * loopwright@loopwright` install it for every project of the user. The plugin holds the same hooks and
 * reviewer subagent as `init claude` (not CLAUDE.md or LESSONS.md, which belong to a project), and its
 * own launcher pinned to this Node.js. Hooks act only in checkouts with a loop.yaml at their root.
 */

import { chmod } from "node:fs/promises";
import { dirname, join, resolve } from "node:path";
import { UsageError } from "../../errors.ts";
import {
  existsSync,
  mkdirSync,
  readFileSync,
  rmdirSync,
  unlinkSync,
  writeFileSync,
} from "../../files/node-fs.ts";
import { reviewerAgentName } from "../hook-context.ts";
import { launcherScript } from "../templates/launcher-script.ts";
import { reviewerAgent } from "../templates/reviewer-agent.ts";
import type { InitClaudeResult } from "./init-claude.ts";
import { checkLauncher, pinnedNode } from "./launcher.ts";
import { hookModeEntries } from "./settings-hooks.ts";

export const pluginName = "loopwright";
export const marketplaceName = "loopwright";

const marketplaceManifest = ".claude-plugin/marketplace.json";
const pluginFolder = pluginName;
const launcherPath = `${pluginFolder}/bin/loopwright-hook`;

/** The files of the marketplace, by path relative to its folder. */
function pluginFiles(version: string, launcher: string): Record<string, string> {
  const description =
    "loopwright's definition of done inside Claude Code: gates of loop.yaml at every stop, a reviewer whose findings decide, deferred review, lessons.";
  const json = (value: unknown) => `${JSON.stringify(value, null, 2)}\n`;
  return {
    [marketplaceManifest]: json({
      name: marketplaceName,
      owner: { name: "loopwright" },
      description: "A local marketplace written by `loopwright init claude --plugin`.",
      plugins: [{ name: pluginName, source: `./${pluginFolder}`, description, version }],
    }),
    [`${pluginFolder}/.claude-plugin/plugin.json`]: json({
      name: pluginName,
      version,
      description,
      author: { name: "loopwright" },
      license: "MIT",
    }),
    [`${pluginFolder}/hooks/hooks.json`]: json({
      description: "loopwright hook mode (active in checkouts with a loop.yaml at their root)",
      hooks: hookModeEntries((event) => `sh "\${CLAUDE_PLUGIN_ROOT}/bin/loopwright-hook" ${event}`),
    }),
    [`${pluginFolder}/agents/${reviewerAgentName}.md`]: reviewerAgent(reviewerAgentName),
    [launcherPath]: launcher,
  };
}

export async function writeClaudePlugin(folder: string): Promise<InitClaudeResult> {
  const root = resolve(folder);
  const manifest = join(root, marketplaceManifest);
  if (existsSync(manifest) && !readFileSync(manifest, "utf8").includes(`"name": "${marketplaceName}"`))
    throw new UsageError(`${manifest} is another marketplace; choose an empty folder for loopwright's`);
  const pinned = pinnedNode();
  const version = packageVersion();
  const launcher = launcherScript({
    node: pinned.node,
    nodeVersion: pinned.version,
    entry: pinned.entry,
    env: {
      LOOPWRIGHT_REVIEWER_AGENT: `${pluginName}:${reviewerAgentName}`,
      LOOPWRIGHT_HOOK_SOURCE: "plugin",
    },
  });
  for (const [path, content] of Object.entries(pluginFiles(version, launcher))) {
    mkdirSync(dirname(join(root, path)), { recursive: true });
    writeFileSync(join(root, path), content);
  }
  await chmod(join(root, launcherPath), 0o755);
  const nodeVersion = await checkLauncher(join(root, launcherPath));
  return {
    root,
    lines: [
      `wrote the marketplace ${marketplaceName} with the plugin ${pluginName} ${version} in ${root}`,
      `launcher ${launcherPath}: Node.js ${nodeVersion} at ${pinned.node}`,
      "install it for your projects with:",
      `  claude plugin marketplace add ${root}`,
      `  claude plugin install ${pluginName}@${marketplaceName}`,
      "its hooks act in checkouts that have a loop.yaml at their root (run `loopwright init` there)",
    ],
  };
}

export async function removeClaudePlugin(folder: string): Promise<InitClaudeResult> {
  const root = resolve(folder);
  const lines: string[] = [];
  const paths = Object.keys(pluginFiles("", ""));
  for (const path of paths) {
    if (!existsSync(join(root, path))) continue;
    unlinkSync(join(root, path));
    lines.push(`deleted ${path}`);
  }
  const folders = new Set(paths.flatMap((path) => ancestors(path)));
  for (const relativeFolder of [...folders].sort((left, right) => right.length - left.length)) {
    try {
      rmdirSync(join(root, relativeFolder));
    } catch {
      // Not empty or gone.
    }
  }
  if (lines.length > 0)
    lines.push(
      `uninstall it from Claude Code with: claude plugin uninstall ${pluginName}@${marketplaceName}`,
    );
  else lines.push(`no loopwright plugin in ${root}; nothing changed`);
  return { root, lines };
}

function ancestors(path: string): string[] {
  const found: string[] = [];
  for (let current = dirname(path); current !== "."; current = dirname(current)) found.push(current);
  return found;
}

function packageVersion(): string {
  return (
    JSON.parse(readFileSync(new URL("../../../package.json", import.meta.url), "utf8")) as { version: string }
  ).version;
}
