/**
 * The files a gate or setup command names: scripts it runs (`sh scripts/verify.sh`, `./check.sh`,
 * `node tools/x.js`, `python manage.py`), tests it hands a runner (`mocha tests.js`, `pytest tests/`,
 * `python -m unittest test.py`), configuration it points at (`--config`, `--manifest-path`), and the
 * package scripts it runs (`npm test` → the `test` script of package.json, read through to what that
 * script names). Wrappers are seen through (`VAR=x`, `env`, `npx`, `timeout`, `uv run`, `bash -c "…"`),
 * and `cd` moves where later relative paths point. Pure: package scripts come from a lookup.
 *
 * Paths are repository-relative (the command runs at the repository root) with forward slashes; a path
 * outside the repository, the root itself, or one holding a shell expansion is left out. A test path
 * may be a folder or a glob (`test/**\/*.spec.js`); `go test ./pkg/...` gives `pkg/**`.
 */

import { posix } from "node:path";
import { makeTargetsRun, packageScriptRun } from "./package-and-make-runs.ts";
import { repositoryPath } from "./repository-path.ts";
import { type ShellWord, simpleCommands } from "./shell-words.ts";

/** How a command uses a path. */
export type NamedPathRole = "script" | "tests" | "config" | "package-script" | "make-target";

/**
 * A path a command names. For `package-script`, `path` is the package.json and `script` the name run;
 * for `make-target`, `path` is the Makefile and `script` the target (`""`: the default goal).
 */
export interface NamedPath {
  path: string;
  role: NamedPathRole;
  script?: string;
}

/** The `scripts` of a package.json. */
export type PackageScripts = Record<string, string>;

/** The scripts of the package.json in `directory` ("" is the repository root), if there is one. */
export type PackageScriptsLookup = (directory: string) => PackageScripts | undefined;

/** Every path `command` (run in `directory`, default the root) names, in the order found, each once. */
export function pathsNamedBy(
  command: string,
  packages: PackageScriptsLookup = () => undefined,
  directory = "",
): NamedPath[] {
  const found: NamedPath[] = [];
  readCommandLine(command, directory, { packages, found, depth: 0 });
  const seen = new Set<string>();
  return found.filter((entry) => {
    const key = `${entry.role}\u0000${entry.path}\u0000${entry.script ?? ""}`;
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
}

interface Reading {
  packages: PackageScriptsLookup;
  found: NamedPath[];
  /** Nesting of `bash -c` strings and package scripts, bounded against a script that runs itself. */
  depth: number;
}

const maximumDepth = 6;

function readCommandLine(line: string, directory: string, reading: Reading): void {
  if (reading.depth > maximumDepth) return;
  // `cd` lasts until the end of the line, or of the subshell it was run in.
  const directories = [directory];
  for (const simple of simpleCommands(line)) {
    directories.length = Math.min(directories.length, simple.depth + 1);
    while (directories.length < simple.depth + 1) directories.push(directories.at(-1) ?? directory);
    const current = directories[simple.depth];
    const moved = readSimpleCommand(simple.words, current, reading);
    if (moved !== undefined) directories[simple.depth] = moved;
  }
}

const shells = /^(?:sh|bash|zsh|dash|ksh)$/;
const interpreters = /^(?:node|nodejs|tsx|ts-node|ruby|perl|php|Rscript|lua|python(?:\d+(?:\.\d+)?)?|py)$/;
const testRunners =
  /^(?:pytest|py\.test|mocha|jest|vitest|ava|tap|tape|jasmine|karma|playwright|cypress|rspec|phpunit|nose2|nosetests|prove|green|trial)$/;
/** Runners that run every file of a folder they are given, whatever its name. */
const folderRunners = /^(?:mocha|tape|tap|ava)$/;
/** Subcommands of the runners that have them (`vitest run`, `playwright test`, `cypress run`). */
const runnerSubcommands: Record<string, RegExp> = {
  vitest: /^(?:run|watch|related|bench|dev)$/,
  playwright: /^test$/,
  cypress: /^(?:run|open)$/,
};
const pythonRunnerModules = /^(?:pytest|unittest|nose2|nose|green|trial|xmlrunner)$/;
/^(?:py_compile|compileall|mypy|pyright|ruff|flake8|pylint|black|isort|build|pip)$/;
/** Wrappers whose options all come attached (`--reporter=text`) or as known flags, then a command. */
const plainWrappers = /^(?:time|nice|nohup|exec|command|sudo|stdbuf|c8|nyc|xvfb-run|dotenv|cross-env|env)$/;

/** Options that take a separate value, per program (a value that is not a path is skipped). */
const valueOptions: Record<string, RegExp> = {
  common:
    /^(?:-c|--config|--config-file|--rcfile|--settings|-k|-m|-p|-t|-g|-R|--grep|--reporter|--timeout|-n|-j|--jobs|--workers|--maxfail|--testNamePattern|--test-name-pattern|--reporter-options|--ignore|--deselect|--rootdir|--basetemp|--cov|--cov-report|--junitxml|-o|--override-ini|--durations|--seed|--shard|--project|--environment|--env|--profile|--format|-f|-I|-u|--unset|-C|--chdir|--dir|--prefix|--cwd|-w|--workspace|--filter|--package|--manifest-path|--features|--target|--bin|--test|--example|-r|--require|--import|--loader|--experimental-loader|--spec|--file|--makefile|--tsconfig|--setupFiles)$/,
};
/** Options whose value is a configuration file. */
const configOptions =
  /^(?:-c|--config|--config-file|--rcfile|--settings|--manifest-path|--project|--tsconfig|--makefile|--file|-f|-p|-r|--require|--import|--loader|--experimental-loader|--setupFiles|--spec)$/;

/** Linters and compilers whose short `-c`/`-p` options take their configuration file. */
const shortConfigPrograms = /^(?:tsc|eslint|prettier|stylelint|rubocop|golangci-lint|phpstan|psalm|ktlint)$/;

/** Reads one simple command; returns the new directory when it is a `cd`. */
function readSimpleCommand(all: ShellWord[], directory: string, reading: Reading): string | undefined {
  let words = all;
  // Leading assignments, and wrappers that run the rest.
  for (;;) {
    while (words.length > 0 && /^[A-Za-z_]\w*=/.test(words[0].text)) words = words.slice(1);
    if (words.length === 0) return undefined;
    // A program named by an absolute path (`/bin/sh`, `/usr/bin/env`) is the system's: read it by name.
    if (words[0].text.startsWith("/"))
      words = [{ ...words[0], text: posix.basename(words[0].text) }, ...words.slice(1)];
    const program = words[0].text;
    if (plainWrappers.test(program)) {
      words = words.slice(1);
      while (words.length > 0 && (words[0].text.startsWith("-") || /^[A-Za-z_]\w*=/.test(words[0].text))) {
        const option = words[0].text;
        words = words.slice(/^(?:-n|-u|--unset|-i|-o|-e|-s)$/.test(option) ? 2 : 1);
      }
      continue;
    }
    if (program === "timeout") {
      words = words.slice(1);
      while (words[0]?.text.startsWith("-")) words = words.slice(/^-[sk]$/.test(words[0].text) ? 2 : 1);
      words = words.slice(1); // the duration
      continue;
    }
    if (program === "bundle" && words[1]?.text === "exec") {
      words = words.slice(2);
      continue;
    }
    if (/^(?:npx|bunx|pnpx)$/.test(program) || /^(?:exec|dlx)$/.test(words[1]?.text ?? "")) {
      if (!/^(?:npx|bunx|pnpx|npm|pnpm|yarn|bun)$/.test(program)) break;
      words = words.slice(/^(?:npx|bunx|pnpx)$/.test(program) ? 1 : 2);
      while (words[0]?.text.startsWith("-")) {
        const option = words[0].text;
        words = words.slice(/^(?:-p|--package|-c|--call)$/.test(option) ? 2 : 1);
        if (option === "--") break;
      }
      continue;
    }
    if (/^(?:uv|poetry|pipenv|pdm|hatch|rye)$/.test(program) && words[1]?.text === "run") {
      words = words.slice(2);
      while (words[0]?.text.startsWith("-")) words = words.slice(1);
      continue;
    }
    break;
  }
  const program = words[0].text;
  const rest = words.slice(1);
  const add = (role: NamedPathRole, word: ShellWord | undefined) => addPath(reading, directory, role, word);
  if (program === "cd") {
    const target = rest.find((word) => !word.text.startsWith("-"));
    if (!target || target.expands) return directory;
    return repositoryPath(directory, target.text) ?? directory;
  }
  if (program === "source" || program === ".") {
    add("script", rest[0]);
    return undefined;
  }
  if (shells.test(program)) {
    if (rest.some((word) => /^-\w*n\w*$/.test(word.text))) return undefined; // `-n`: read, not run
    const command = rest.findIndex((word) => /^-\w*c\w*$/.test(word.text));
    if (command >= 0) {
      const text = rest[command + 1];
      if (text && !text.expands) readNested(text.text, directory, reading);
      return undefined;
    }
    add(
      "script",
      rest.find((word) => !word.text.startsWith("-") && !word.text.startsWith("+")),
    );
    return undefined;
  }
  if (/^(?:npm|pnpm|yarn|bun)$/.test(program)) {
    const run = packageScriptRun(program, rest, directory);
    if (run?.runnerArguments) readRunnerArguments(run.runnerArguments, directory, reading, program);
    else if (run?.script !== undefined) readPackageScript(run.directory, run.script, reading);
    return undefined;
  }
  if (interpreters.test(program) || program === "deno") {
    readInterpreter(program, rest, directory, reading);
    return undefined;
  }
  if (program === "make" || program === "gmake") {
    reading.found.push(...makeTargetsRun(rest, directory));
    return undefined;
  }
  if (program === "go" || program === "cargo") {
    const { positionals, options } = split(rest.slice(1), program);
    for (const [option, value] of options) if (configOptions.test(option)) add("config", value);
    if (program === "go" && rest[0]?.text === "run") add("script", positionals[0]);
    return undefined;
  }
  if (testRunners.test(program)) {
    const afterSubcommand = runnerSubcommands[program]?.test(rest[0]?.text ?? "") ? rest.slice(1) : rest;
    readRunnerArguments(afterSubcommand, directory, reading, program);
    return undefined;
  }
  if (program.includes("/")) {
    add("script", words[0]);
    return undefined;
  }
  // Any other program: its long configuration options name configuration; a short option (`test -f`,
  // `grep -f`, `tar -f`) means something else to every utility, so only tools known to take a
  // configuration file that way count (`tsc -p`, `eslint -c`).
  const { options } = split(rest, program);
  for (const [option, value] of options) {
    if (configOptions.test(option) && (option.startsWith("--") || shortConfigPrograms.test(program))) {
      add("config", value);
    }
  }
  return undefined;
}

/** `node file`, `node --test paths`, `python -m unittest x`, `python manage.py`, `deno run file`. */
function readInterpreter(program: string, rest: ShellWord[], directory: string, reading: Reading): void {
  const add = (role: NamedPathRole, word: ShellWord | undefined) => addPath(reading, directory, role, word);
  const words =
    program === "deno" || program === "bun" ? rest.slice(/^(?:run|test)$/.test(rest[0]?.text) ? 1 : 0) : rest;
  // A syntax check (`node --check`, `ruby -c`, `perl -c`) reads the file without running it.
  const checkOnly = program.startsWith("python") || program === "py" ? /^$/ : /^(?:--check|-c)$/;
  if (words.some((word) => checkOnly.test(word.text))) return;
  if (program.startsWith("python") || program === "py") {
    // `-m module`, or attached: `-mpytest`.
    const module = words.findIndex((word) => /^-m/.test(word.text));
    if (module >= 0) {
      const attached = words[module].text.slice(2);
      const name = attached === "" ? words[module + 1] : { ...words[module], text: attached };
      const rest = words.slice(module + (attached === "" ? 2 : 1));
      if (!name || name.expands) return;
      // `python -m` looks in the current folder first: a module of that name there is what runs.
      add("script", { ...name, text: `${name.text.replaceAll(".", "/")}.py` });
      add("script", { ...name, text: name.text.replaceAll(".", "/") });
      if (pythonRunnerModules.test(name.text)) readRunnerArguments(rest, directory, reading, name.text);
      return;
    }
    if (words.some((word) => word.text === "-c")) return;
  }
  if ((program === "node" || program === "nodejs") && words.some((word) => word.text === "--test")) {
    readRunnerArguments(words, directory, reading, "node");
    return;
  }
  if (program === "deno" && rest[0]?.text === "test") {
    readRunnerArguments(words, directory, reading, "deno");
    return;
  }
  const { positionals, options } = split(words, program);
  for (const [option, value] of options) if (configOptions.test(option)) addConfig(reading, directory, value);
  add("script", positionals[0]);
}

/** A test runner's arguments: positionals are tests, configuration options name configuration. */
function readRunnerArguments(words: ShellWord[], directory: string, reading: Reading, runner: string): void {
  const end = words.findIndex((word) => word.text === "--");
  const { positionals, options } = split(end >= 0 ? words.slice(0, end) : words, runner);
  for (const [option, value] of options) if (configOptions.test(option)) addConfig(reading, directory, value);
  for (const word of positionals) {
    if (runner === "unittest" && /^[A-Za-z_][\w.]*$/.test(word.text) && !/\.py$/.test(word.text)) {
      addPath(reading, directory, "tests", { ...word, text: `${word.text.replaceAll(".", "/")}.py` });
      continue;
    }
    const path = word.text.replace(/::.*$/, "");
    // A folder: mocha, tape, tap and ava run every file in it, but the other runners pick the tests in
    // it by name (which the default patterns know); its other files are code, not tests (`jest src`).
    const folder = !/\.[A-Za-z]\w*$|[*?[{]/.test(path);
    if (folder && !folderRunners.test(runner)) continue;
    addPath(reading, directory, "tests", { ...word, text: path });
  }
}

/** The package script `name` of the package.json in `directory`, and what it (with its pre- and post-script) names. */
function readPackageScript(directory: string, name: string, reading: Reading): void {
  const manifest = posix.join(directory, "package.json");
  const seen = reading.found.some(
    (entry) => entry.role === "package-script" && entry.path === manifest && entry.script === name,
  );
  reading.found.push({ path: manifest, role: "package-script", script: name });
  const scripts = reading.packages(directory);
  if (!scripts || seen) return;
  const nested = { ...reading, depth: reading.depth + 1 };
  for (const script of [`pre${name}`, name, `post${name}`]) {
    const text = scripts[script];
    if (text !== undefined) readCommandLine(text, directory, nested);
  }
}

/** Options (with their value when the option takes one) and positionals. */
function split(
  words: ShellWord[],
  program: string,
): { positionals: ShellWord[]; options: [string, ShellWord][] } {
  const positionals: ShellWord[] = [];
  const options: [string, ShellWord][] = [];
  for (let index = 0; index < words.length; index++) {
    const word = words[index];
    if (word.text === "--") {
      if (program === "cargo" || program === "go") break;
      continue;
    }
    if (!word.text.startsWith("-") || word.text === "-") {
      positionals.push(word);
      continue;
    }
    const attached = /^(--?[\w-]+)=(.*)$/.exec(word.text);
    if (attached) {
      options.push([attached[1], { ...word, text: attached[2] }]);
      continue;
    }
    // `-p tsconfig.json` is a path for tsc but a plugin name for pytest; a value is always skipped.
    if (valueOptions.common.test(word.text) && !(program === "node" && word.text === "--test")) {
      const value = words[index + 1];
      if (value) options.push([word.text, value]);
      index++;
    }
  }
  return { positionals, options };
}

/** A configuration path, when the value looks like a file (`./x`, `x/y.js`, `x.json`), not a module name. */
function addConfig(reading: Reading, directory: string, word: ShellWord): void {
  if (/^\.{0,2}\/|\.[A-Za-z][\w-]*$/.test(word.text)) addPath(reading, directory, "config", word);
}

/** Adds `word` as a repository path of `role`, unless it expands, leaves the repository or is the root. */
function addPath(
  reading: Reading,
  directory: string,
  role: NamedPathRole,
  word: ShellWord | undefined,
): void {
  if (!word || word.expands || word.text === "" || word.text.startsWith("-")) return;
  if (role === "config" && !/^\.{0,2}\/|\.[A-Za-z][\w-]*$/.test(word.text)) return;
  const path = repositoryPath(directory, word.text);
  if (path === undefined || path === "") return;
  reading.found.push({ path, role });
}

function readNested(text: string, directory: string, reading: Reading): void {
  readCommandLine(text, directory, { ...reading, depth: reading.depth + 1 });
}
