/**
 * Which package script a package-manager command runs (`npm test`, `npm run x`, `yarn x`,
 * `pnpm --dir d test`, `bun run x`; `bun test` runs a test runner instead), and which make targets
 * `make [-C dir] [-f file] [VAR=x] [targets]` runs. Pure: reading what the script or recipe holds is the
 * caller's.
 */

import type { NamedPath } from "./command-paths.ts";
import { repositoryPath } from "./repository-path.ts";
import type { ShellWord } from "./shell-words.ts";

/** What a package-manager command runs: a script of the package in `directory`, or a test runner's arguments. */
export interface PackageScriptRun {
  directory: string;
  script?: string;
  runnerArguments?: ShellWord[];
}

/** The package script `program` (npm, pnpm, yarn, bun) runs with `words`, run from `directory`. */
export function packageScriptRun(
  program: string,
  words: ShellWord[],
  directory: string,
): PackageScriptRun | undefined {
  let packageDirectory = directory;
  const positionals: ShellWord[] = [];
  for (let index = 0; index < words.length; index++) {
    const text = words[index].text;
    if (text === "--") break;
    const attached = /^(--prefix|--dir|--cwd|-C)=(.*)$/.exec(text);
    if (/^(?:--prefix|--dir|--cwd|-C)$/.test(text) || attached) {
      const value = attached ? attached[2] : words[++index]?.text;
      if (value !== undefined) packageDirectory = repositoryPath(directory, value) ?? packageDirectory;
      continue;
    }
    if (/^(?:-w|--workspace|--filter|-F)$/.test(text)) {
      index++;
      continue;
    }
    if (text.startsWith("-")) continue;
    positionals.push(words[index]);
  }
  const [first, second] = positionals.map((word) => word.text);
  if (first === undefined) return undefined;
  if (program === "bun" && first === "test") {
    return { directory, runnerArguments: words.slice(words.indexOf(positionals[0]) + 1) };
  }
  let script: string | undefined;
  if (/^(?:run|run-script|rum|urn)$/.test(first)) script = second;
  else if (/^(?:test|t|tst|start|stop|restart)$/.test(first))
    script = { t: "test", tst: "test" }[first] ?? first;
  else if (/^(?:yarn|pnpm|bun)$/.test(program) && !builtins.test(first)) script = first;
  return script === undefined ? undefined : { directory: packageDirectory, script };
}

/** `make [-C dir] [-f file] [VAR=x] [targets]`: one `make-target` per target (`""` for the default goal). */
export function makeTargetsRun(words: ShellWord[], directory: string): NamedPath[] {
  let makeDirectory = directory;
  let makefile: string | undefined;
  const targets: string[] = [];
  for (let index = 0; index < words.length; index++) {
    const word = words[index];
    const attached = /^(?:--directory|--file|--makefile)=(.*)$/.exec(word.text);
    const option = /^(-C|-f|--directory|--file|--makefile)$/.exec(word.text)?.[1];
    const value = attached ? attached[1] : option ? words[++index]?.text : undefined;
    if (value !== undefined) {
      if (word.text.startsWith("-C") || word.text.startsWith("--directory")) {
        makeDirectory = repositoryPath(makeDirectory, value) ?? makeDirectory;
      } else makefile = value;
      continue;
    }
    if (/^-[jlo]$/.test(word.text) && /^\d+$/.test(words[index + 1]?.text ?? "")) index++;
    if (word.text.startsWith("-") || word.expands || word.text.includes("=")) continue;
    targets.push(word.text);
  }
  const path = repositoryPath(makeDirectory, makefile ?? "Makefile");
  if (path === undefined || path === "") return [];
  return (targets.length > 0 ? targets : [""]).map((target) => ({
    path,
    role: "make-target",
    script: target,
  }));
}

const builtins =
  /^(?:install|i|add|remove|rm|uninstall|ci|init|create|exec|dlx|x|why|list|ls|outdated|update|upgrade|up|link|unlink|publish|pack|config|cache|info|view|audit|dedupe|prune|rebuild|help|version|login|logout|workspaces?|global|import|patch|store|env|setup|bin|root|node|dlx|set|plugin|constraints|explain)$/;
