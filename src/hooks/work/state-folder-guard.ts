/**
 * Whether a tool call of the agent would write into `.loopwright/`, where the hook keeps its state, the
 * reviewer's report and the verdict, or into the reviewer subagent's definition. File tools are judged by where their path really lands (symlinks
 * followed); Bash commands by what they name, however spelled (`./`, `$PWD/`, quotes cut into the
 * name, a glob, a symlink to the folder). A Bash command that names the folder may only read it (cat,
 * grep, ls...) or be the close command. Commands that run a hook event by hand (a forged
 * `subagent-stop`) and `git clean -x` (which deletes the folder) are denied too. This is a guard
 * against a model that cuts corners, not a sandbox: the verdict's hash in the hook state is the
 * second line (see verdict-file.ts).
 */

import { basename, dirname, isAbsolute, join, relative, resolve, sep } from "node:path";
import { realpathSync } from "../../files/node-fs.ts";
import { reviewerAgentName } from "../hook-context.ts";
import { stateFolderName } from "../hook-layout.ts";
import { namesSettings, settingsHoldHookMode, settingsWriteProblem } from "./settings-guard.ts";

/** The reviewer subagent's definition: rewriting it ("always answer No findings") would empty the review. */
const reviewerFile = `.claude/agents/${reviewerAgentName}.md`;
/** What the agent may not write, relative to the checkout root. */
const protectedPaths = [stateFolderName, reviewerFile];

export type GuardVerdict = { kind: "allow" } | { kind: "deny"; why: string };

const fileTools = new Set(["Write", "Edit", "MultiEdit", "NotebookEdit"]);
/** Commands that only read what they are given. */
const readers = new Set([
  "cat",
  "head",
  "tail",
  "less",
  "more",
  "grep",
  "egrep",
  "fgrep",
  "rg",
  "ls",
  "wc",
  "stat",
  "file",
  "diff",
  "jq",
  "find",
  "du",
  "echo",
  "printf",
  "true",
]);
/** `find` actions that write or run something. */
const findWriters = /\s-(delete|exec|execdir|ok|okdir|fprint|fprint0|fprintf|fls)\b/;
/** Redirections that write nowhere that matters. */
const harmlessRedirection = /\d?>&\d|\d?>\s*\/dev\/null/g;
const handRunHook = /\bhook\s+(subagent-stop|stop|prompt|pre-tool|post-tool)\b/;
const cleanIgnored = /\bgit\s+(-\S+\s+)*clean\b[^|;&]*\s-\w*x/i;

/** The guard's decision for one tool call; `cwd` is where the agent's shell is, `root` the checkout. */
export function stateFolderVerdict(
  toolName: string,
  toolInput: Record<string, unknown>,
  root: string,
  cwd: string,
): GuardVerdict {
  if (fileTools.has(toolName)) {
    const target = toolInput.file_path ?? toolInput.notebook_path;
    if (typeof target !== "string" || target === "") return { kind: "allow" };
    if (landsInProtected(resolve(cwd, target), root)) return deny(`${toolName} of ${target}`);
    const settingsProblem = settingsWriteProblem(toolName, toolInput, root, cwd);
    return settingsProblem ? deny(settingsProblem) : { kind: "allow" };
  }
  if (toolName !== "Bash" || typeof toolInput.command !== "string") return { kind: "allow" };
  return bashVerdict(toolInput.command, root, cwd);
}

function bashVerdict(command: string, root: string, cwd: string): GuardVerdict {
  // Quotes and backslashes cut into a name do not change the name the shell sees.
  const plain = command.replace(/["'\\]/g, "");
  if (handRunHook.test(plain)) return deny("running a hook event by hand");
  if (cleanIgnored.test(plain)) return deny("`git clean -x`, which deletes it");
  const words = plain.split(/[\s;&|<>()`=]+/).filter((word) => word !== "");
  if (namesSettings(plain) && !onlyReads(plain) && settingsHoldHookMode(root))
    return deny("a command that writes Claude Code's settings, where hook mode's hooks are");
  const names =
    protectedPaths.some((path) => plain.includes(path.split("/").at(-1) ?? path)) ||
    words.some((word) => globNamesStateFolder(word) || landsInProtected(resolve(cwd, word), root));
  if (!names || onlyReads(plain)) return { kind: "allow" };
  return deny("a command that names one of them and does not only read it");
}

/** True when every part of the command reads (or is the close command) and nothing is redirected into a file. */
function onlyReads(plain: string): boolean {
  if (/`|\$\(/.test(plain)) return false;
  const unredirected = plain.replace(harmlessRedirection, " ");
  if (unredirected.includes(">")) return false;
  return unredirected
    .split(/&&|\|\||[;|\n&]/)
    .map((part) => part.trim())
    .filter((part) => part !== "")
    .every((part) => {
      if (new RegExp(`^\\S*${stateFolderName}/hook\\s+close$`).test(part)) return true;
      const program = basename(part.split(/\s+/)[0] ?? "");
      if (!readers.has(program) || /\btee\b/.test(part)) return false;
      return program !== "find" || !findWriters.test(` ${part}`);
    });
}

/** True for a word with glob characters whose folder part could match `.loopwright`. */
function globNamesStateFolder(word: string): boolean {
  if (!/[*?[]/.test(word)) return false;
  return word.split("/").some((segment) => {
    if (!/[*?[]/.test(segment)) return false;
    const pattern = segment
      .replace(/[.+^${}()|\\]/g, "\\$&")
      .replace(/\*/g, ".*")
      .replace(/\?/g, ".");
    try {
      return new RegExp(`^${pattern}$`).test(stateFolderName);
    } catch {
      return true;
    }
  });
}

/** True when `path` is a protected path or inside one, by name or once symlinks are followed. */
function landsInProtected(path: string, root: string): boolean {
  return protectedPaths.some((relativePath) => {
    const target = join(root, relativePath);
    return isInside(path, target) || isInside(realPrefix(path), realPrefix(target));
  });
}

function isInside(path: string, folder: string): boolean {
  const rest = relative(folder, path);
  return rest === "" || (!rest.startsWith(`..${sep}`) && rest !== ".." && !isAbsolute(rest));
}

/** `path` with symlinks followed in its longest existing prefix. */
function realPrefix(path: string): string {
  const rest: string[] = [];
  let current = path;
  while (true) {
    try {
      return join(realpathSync(current), ...rest.reverse());
    } catch {
      const parent = dirname(current);
      if (parent === current) return path;
      rest.push(basename(current));
      current = parent;
    }
  }
}

function deny(what: string): GuardVerdict {
  return {
    kind: "deny",
    why: `${stateFolderName}/ and ${reviewerFile} belong to the hook (its state, the reviewer, its report and the verdict): ${what} is not allowed. Only the reviewer subagent's report, recorded by the hook, counts; fix the code instead, and read the logs there with cat or grep.`,
  };
}
