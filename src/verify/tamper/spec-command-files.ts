/**
 * What the spec's own commands add to the tamper set: the scripts gates and setup run, the tests and
 * configuration they name (see `command-paths.ts`), and the package.json scripts gates run, which are
 * compared between the base and the graded commit (a gate's `npm test` whose script the change
 * rewrote is a blocking `gate-script-changed` flag at the script's line). Pure: package.json texts come
 * from lookups, which the caller fills from git.
 */

import { posix } from "node:path";
import type { CommandNamedPath } from "./classify-files.ts";
import { type NamedPath, type PackageScripts, pathsNamedBy } from "./command-paths.ts";
import { excerpt, type TamperFlag } from "./tamper-flag.ts";

/** A command of the spec: a gate's `run` (with its id) or a `setup` command (no gate). */
export interface SpecCommand {
  command: string;
  gate?: string;
}

/** package.json texts by directory ("" is the repository root), at the base and at the graded commit. */
export interface PackageManifests {
  base(directory: string): string | undefined;
  graded(directory: string): string | undefined;
}

/** The named paths, for the tamper matcher, and the flags for package scripts gates run that changed. */
export interface SpecCommandFiles {
  named: CommandNamedPath[];
  flags: TamperFlag[];
}

/** Reads what `commands` name, through the package scripts of both commits. */
export function specCommandFiles(
  commands: readonly SpecCommand[],
  manifests: PackageManifests,
): SpecCommandFiles {
  const named: CommandNamedPath[] = [];
  const flags: TamperFlag[] = [];
  const flagged = new Set<string>();
  for (const { command, gate } of commands) {
    const who = gate === undefined ? "the setup" : `gate ${gate}`;
    const shown = `\`${excerpt(command)}\``;
    const paths: NamedPath[] = [
      ...pathsNamedBy(command, (directory) => scriptsIn(manifests.base(directory))),
      ...pathsNamedBy(command, (directory) => scriptsIn(manifests.graded(directory))),
    ];
    for (const path of paths) {
      if (path.role === "script") {
        named.push({
          pattern: path.path,
          category: gate === undefined ? "setup-script" : "gate-script",
          reason: `${who} runs this script (${shown})`,
        });
      } else if (path.role === "tests") {
        named.push({ pattern: path.path, category: "tests", reason: `test file named by ${who} (${shown})` });
      } else if (path.role === "config") {
        named.push({
          pattern: path.path,
          category: "test-config",
          reason: `configuration named by ${who} (${shown})`,
        });
      } else if (gate !== undefined && path.script !== undefined) {
        for (const script of [`pre${path.script}`, path.script, `post${path.script}`]) {
          const key = `${path.path}\u0000${script}`;
          if (flagged.has(key)) continue;
          const flag = changedScript(path.path, script, manifests, `${who} runs (${shown})`);
          if (!flag) continue;
          flagged.add(key);
          flags.push(flag);
        }
      }
    }
  }
  return { named, flags };
}

/** A flag when `script` of the package.json at `path` differs between the two commits. */
function changedScript(
  path: string,
  script: string,
  manifests: PackageManifests,
  runBy: string,
): TamperFlag | undefined {
  const directory = posix.dirname(path) === "." ? "" : posix.dirname(path);
  const baseText = manifests.base(directory);
  const gradedText = manifests.graded(directory);
  const before = scriptsIn(baseText)?.[script];
  const after = scriptsIn(gradedText)?.[script];
  if (before === after) return undefined;
  const removed = after === undefined;
  const line = lineOfKey(removed ? baseText : gradedText, script);
  return {
    kind: "gate-script-changed",
    file: path,
    ...(line === undefined ? {} : { line, side: removed ? "old" : "new" }),
    detail: `script \`${script}\` of ${path}, which ${runBy}, changed: ${before === undefined ? "(none)" : excerpt(before)} → ${removed ? "(removed)" : excerpt(after)}`,
  };
}

/** The string-valued `scripts` of a package.json text; undefined when it is absent or not JSON. */
function scriptsIn(text: string | undefined): PackageScripts | undefined {
  if (text === undefined) return undefined;
  try {
    const scripts = (JSON.parse(text) as { scripts?: unknown }).scripts;
    if (!scripts || typeof scripts !== "object") return {};
    return Object.fromEntries(
      Object.entries(scripts).filter((entry): entry is [string, string] => typeof entry[1] === "string"),
    );
  } catch {
    return undefined;
  }
}

/** The 1-based line of `"key":` after the `"scripts"` key of a package.json text. */
function lineOfKey(text: string | undefined, key: string): number | undefined {
  if (text === undefined) return undefined;
  const lines = text.split("\n");
  const start = Math.max(
    0,
    lines.findIndex((line) => /"scripts"\s*:/.test(line)),
  );
  const pattern = new RegExp(`"${key.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")}"\\s*:`);
  const index = lines.findIndex((line, at) => at >= start && pattern.test(line));
  return index < 0 ? undefined : index + 1;
}
