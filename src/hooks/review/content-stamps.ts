/**
 * Content stamps of a set of changed files: two hashes that tie a review to a state of the code. Pure.
 *
 * `all` covers every changed file; `code` covers all of them but inert prose (README, docs, notes).
 * A review is stale when the `code` stamp changed; an edit to prose alone changes `all` only, so the
 * review holds. Markdown that is behaviour (CLAUDE.md, AGENTS.md, agent prompts, SKILL.md, commands)
 * is code written in English: it counts in `code`.
 */
import { sha256HexOf } from "./sha256.ts";

/** One changed file: its path relative to the repository root (`/` separators) and a digest of its content. */
export interface FileState {
  path: string;
  /** A hash of the bytes, or `deleted` when the file is gone. */
  digest: string;
}

export interface ContentStamps {
  /** Over every changed file. */
  all: string;
  /** Over every changed file but inert prose. */
  code: string;
  /** Sorted paths. */
  files: string[];
  codeFiles: string[];
  proseFiles: string[];
}

// Sets of lower-cased names, not regular expressions: a case-insensitive alternation is compiled at
// its first match, ~0.5 ms of every hook that stamps its changed files.
const proseExtensions = new Set(["md", "markdown", "rst", "adoc", "asciidoc", "org"]);
const proseNames = new Set([
  "readme",
  "changelog",
  "changes",
  "history",
  "news",
  "notes",
  "authors",
  "contributors",
  "contributing",
  "license",
  "licence",
  "copying",
  "notice",
  "code_of_conduct",
  "security",
]);
/** The extensions a prose name may carry (`README.txt`, `LICENSE.md`). */
const proseNameExtensions = new Set(["txt", "md", "markdown", "rst", "adoc"]);
const proseFolders = new Set(["doc", "docs", "notes"]);
/** Files that steer an agent, whatever their folder. */
const behaviourNames = new Set([
  "claude.md",
  "claude.local.md",
  "agents.md",
  "gemini.md",
  "skill.md",
  "copilot-instructions.md",
]);
/** Folders whose Markdown is configuration of an agent or a tool (prompts, commands, skills, workflows). */
const behaviourFolders = new Set([
  ".claude",
  ".codex",
  ".cursor",
  ".github",
  ".windsurf",
  ".agent",
  ".agents",
  "agents",
  "commands",
  "skills",
  "prompts",
]);

/**
 * True for a file whose change cannot change behaviour: Markdown and similar prose (README, LESSONS.md,
 * docs/, notes/, LICENSE), unless it lives where agents read instructions (see `behaviourNames`,
 * `behaviourFolders`). Everything else, including images and `requirements.txt`, is code.
 */
export function isInertProse(path: string): boolean {
  // ASCII letters only, as the case-insensitive expressions this replaced (no u flag) folded them:
  // toLowerCase() would make the Kelvin sign a k, and `run.mar\u212Adown` no tool's Markdown.
  const segments = path.replace(/[A-Z]+/g, (upper) => upper.toLowerCase()).split("/");
  const name = segments.pop() ?? "";
  if (behaviourNames.has(name) || name.endsWith(".prompt.md")) return false;
  if (segments.some((segment) => behaviourFolders.has(segment))) return false;
  const dot = name.lastIndexOf(".");
  const extension = dot === -1 ? "" : name.slice(dot + 1);
  if (proseExtensions.has(extension) || proseNames.has(name)) return true;
  if (proseNameExtensions.has(extension) && proseNames.has(name.slice(0, dot))) return true;
  return extension === "txt" && segments.some((segment) => proseFolders.has(segment));
}

/** The stamps of `files` (order does not matter; a path listed twice counts once). */
export function contentStamps(files: readonly FileState[]): ContentStamps {
  const byPath = new Map(files.map((file) => [file.path, file.digest]));
  const paths = [...byPath.keys()].sort();
  const codeFiles = paths.filter((path) => !isInertProse(path));
  const stamp = (selected: string[]) =>
    sha256Hex(selected.map((path) => `${path}\0${byPath.get(path)}\n`).join("")).slice(0, 24);
  return {
    all: stamp(paths),
    code: stamp(codeFiles),
    files: paths,
    codeFiles,
    proseFiles: paths.filter((path) => isInertProse(path)),
  };
}

/**
 * How many bytes a process hashes in JavaScript (sha256.ts) before it hands every further hash to
 * node:crypto. Cold JavaScript is slow (interpreted: about 1 MB/s at first) while loading node:crypto
 * costs a fixed amount, so JavaScript pays for a stop's few small hashes only. Measured per process
 * on a 2-core machine, CPU against `node -e ''`: node:crypto +0.22×, JavaScript +0.13× for 100 bytes,
 * +0.17× for 2 KB, +0.32× for 8 KB. At worst (small inputs first, then a large one) a process spends
 * this budget in JavaScript and loads node:crypto anyway.
 */
export const javascriptHashBudget = 4 * 1024;
let hashedInJavascript = 0;

/**
 * The SHA-256 of `data` (a string as UTF-8) in hex, the same digest whichever computes it: JavaScript
 * while the process's budget lasts, so that a hook whose changed files are small never loads
 * node:crypto; else node:crypto (loaded on the first such hash).
 */
export function sha256Hex(data: string | Buffer): string {
  const bytes = typeof data === "string" ? Buffer.from(data, "utf8") : data;
  if (hashedInJavascript + bytes.length <= javascriptHashBudget) {
    hashedInJavascript += bytes.length;
    return sha256HexOf(bytes);
  }
  return process.getBuiltinModule("node:crypto").createHash("sha256").update(bytes).digest("hex");
}
