/**
 * What the spec's own commands add to the tamper set: the scripts gates and setup run, the tests and
 * configuration they name (see `command-paths.ts`), the scripts those shell scripts run in turn (as the
 * base commit wrote them), and the package.json scripts gates run, which are compared between the base
 * and the graded commit (a gate's `npm test` whose script the change rewrote is a blocking
 * `gate-script-changed` flag at the script's line). Pure: file texts come from lookups, which the
 * caller fills from git. A make target a gate runs is read the same way: its recipe compared between
 * the commits (a rewritten `test:` recipe is `gate-script-changed`), the commands in it followed.
 */

import { posix } from "node:path";
import { excerpt, type TamperFlag } from "../../core/tamper-flag.ts";
import type { CommandNamedPath } from "./classify-files.ts";
import { type NamedPath, type PackageScripts, pathsNamedBy } from "./command-paths.ts";
import { type MakeRecipe, makeRecipe } from "./make-recipes.ts";

/** A command of the spec: a gate's `run` (with its id) or a `setup` command (no gate). */
export interface SpecCommand {
  command: string;
  gate?: string;
  /** Who runs it, in flag details, when not a gate (default: `the setup`). */
  runner?: string;
}

/** File texts by repository path at the base and at the graded commit; undefined when absent. */
export interface CommitFiles {
  base(path: string): string | undefined;
  graded(path: string): string | undefined;
}

/** How deep shell scripts that run other scripts are followed. */
const maximumScriptDepth = 3;

/** A shell script by its name: `.sh`, `.bash`, `.zsh`, or no extension (`bin/test`). */
const shellScript = /(?:^|\/)[^/.]+$|\.(?:sh|bash|zsh|ksh)$/;

/** The named paths, for the tamper matcher, and the flags for package scripts gates run that changed. */
export interface SpecCommandFiles {
  named: CommandNamedPath[];
  flags: TamperFlag[];
}

/** Reads what `commands` name, through package scripts and shell scripts. */
export function specCommandFiles(commands: readonly SpecCommand[], files: CommitFiles): SpecCommandFiles {
  const named: CommandNamedPath[] = [];
  const flags: TamperFlag[] = [];
  const flagged = new Set<string>();
  const manifest = (text: (path: string) => string | undefined) => (directory: string) =>
    scriptsIn(text(posix.join(directory, "package.json")));
  for (const spec of commands) {
    const who = spec.gate === undefined ? (spec.runner ?? "the setup") : `gate ${spec.gate}`;
    const read = (
      command: string,
      from: string | undefined,
      depth: number,
      seen: Set<string>,
      directory = "",
    ): void => {
      const shown = `\`${excerpt(command)}\`${from ? `, from ${from}` : ""}`;
      const paths: NamedPath[] = [
        ...pathsNamedBy(command, manifest(files.base), directory),
        ...pathsNamedBy(command, manifest(files.graded), directory),
      ];
      const distinct = new Set<string>();
      for (const path of paths) {
        const key = `${path.role}\u0000${path.path}\u0000${path.script ?? ""}`;
        if (distinct.has(key)) continue;
        distinct.add(key);
        if (path.role === "script") {
          named.push({
            pattern: path.path,
            category: spec.gate === undefined ? "setup-script" : "gate-script",
            reason: `${who} runs this script (${shown})`,
          });
          // What the script runs, as the base commit wrote it: the change cannot hide a call by editing it.
          const text = shellScript.test(path.path) ? files.base(path.path) : undefined;
          if (text !== undefined && depth < maximumScriptDepth && !seen.has(path.path)) {
            // Line by line, so a flag quotes the line that runs the script (a `cd` lasts one line here).
            for (const line of text.replace(/\\\n/g, " ").split("\n")) {
              if (line.trim() !== "" && !line.trim().startsWith("#")) {
                read(line.trim(), path.path, depth + 1, new Set([...seen, path.path]));
              }
            }
          }
        } else if (path.role === "tests") {
          named.push({
            pattern: path.path,
            category: "tests",
            reason: `test file named by ${who} (${shown})`,
          });
        } else if (path.role === "config") {
          named.push({
            pattern: path.path,
            category: "test-config",
            reason: `configuration named by ${who} (${shown})`,
          });
        } else if (path.role === "make-target" && path.script !== undefined) {
          readMakeTarget(existingMakefile(path.path, files), path.script, shown, depth, seen);
        } else if (spec.gate !== undefined && path.script !== undefined) {
          for (const script of [`pre${path.script}`, path.script, `post${path.script}`]) {
            const key = `${path.path}\u0000${script}`;
            if (flagged.has(key)) continue;
            const flag = changedScript(path.path, script, files, `${who} runs (${shown})`);
            if (!flag) continue;
            flagged.add(key);
            flags.push(flag);
          }
        }
      }
    };
    /** A make target a command runs: its recipe compared between the commits, then what it runs. */
    const readMakeTarget = (
      makefile: string,
      target: string,
      shown: string,
      depth: number,
      seen: Set<string>,
    ) => {
      const key = `${makefile}\u0000${target}`;
      if (seen.has(key) || depth >= maximumScriptDepth) return;
      const base = makeRecipe(files.base(makefile) ?? "", target);
      if (spec.gate !== undefined && !flagged.has(key)) {
        const graded = makeRecipe(files.graded(makefile) ?? "", target);
        const flag = changedRecipe(makefile, target, base, graded, `${who} runs (${shown})`);
        if (flag) {
          flagged.add(key);
          flags.push(flag);
        }
      }
      const from = `${makefile} ${target === "" ? "default goal" : target}`;
      const within = new Set([...seen, key]);
      const directory = posix.dirname(makefile) === "." ? "" : posix.dirname(makefile);
      for (const command of base?.commands ?? []) read(command, from, depth + 1, within, directory);
      for (const prerequisite of base?.prerequisites ?? []) {
        readMakeTarget(makefile, prerequisite, `\`${from}\` needs it`, depth + 1, within);
      }
    };
    read(spec.command, undefined, 0, new Set());
  }
  const kept = new Set<string>();
  const unique = named.filter((entry) => {
    const key = `${entry.category}\u0000${entry.pattern}`;
    if (kept.has(key)) return false;
    kept.add(key);
    return true;
  });
  return { named: unique, flags };
}

/** A flag when `script` of the package.json at `path` differs between the two commits. */
function changedScript(
  path: string,
  script: string,
  files: CommitFiles,
  runBy: string,
): TamperFlag | undefined {
  const baseText = files.base(path);
  const gradedText = files.graded(path);
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

/** A flag when the recipe of `target` (its commands or prerequisites) differs between the two commits. */
function changedRecipe(
  makefile: string,
  target: string,
  base: MakeRecipe | undefined,
  graded: MakeRecipe | undefined,
  runBy: string,
): TamperFlag | undefined {
  const shape = (recipe: MakeRecipe | undefined) =>
    recipe ? [recipe.prerequisites.join(" "), ...recipe.commands].join("\n") : undefined;
  if (shape(base) === shape(graded)) return undefined;
  const before = base?.commands ?? [];
  const after = graded?.commands ?? [];
  const at = before.findIndex((command, index) => command !== after[index]);
  const index = at < 0 ? before.length : at;
  const from = before[index] === undefined ? "(none)" : excerpt(before[index]);
  const to =
    graded === undefined ? "(removed)" : after[index] === undefined ? "(none)" : excerpt(after[index]);
  const line = graded?.line ?? base?.line;
  return {
    kind: "gate-script-changed",
    file: makefile,
    ...(line === undefined ? {} : { line, side: graded ? "new" : "old" }),
    detail: `recipe of \`${target === "" ? "the default goal" : target}\` in ${makefile}, which ${runBy}, changed: ${from === to ? "its prerequisites" : `${from} → ${to}`}`,
  };
}

/** `Makefile`, or the `GNUmakefile` or `makefile` beside it that make would read first. */
function existingMakefile(path: string, files: CommitFiles): string {
  if (posix.basename(path) !== "Makefile") return path;
  const directory = posix.dirname(path);
  for (const name of ["GNUmakefile", "makefile", "Makefile"]) {
    const candidate = directory === "." ? name : posix.join(directory, name);
    if (files.base(candidate) !== undefined || files.graded(candidate) !== undefined) return candidate;
  }
  return path;
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
