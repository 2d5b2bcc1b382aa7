/**
 * The repository of a folder found by reading the file system, without starting git: the usual case
 * of every read-only command (`ls`, `show` resolve the current directory's repository), where a git
 * process costs more than the rest of the command. It answers only when it is sure git would give the
 * same answer, and undefined otherwise: the caller then asks git.
 *
 * Sure means: the folder, once its symlinks are resolved, is inside the main worktree of a non-bare
 * repository whose git directory is the real folder `<top level>/.git`, owned by this user like the
 * top level (git's `safe.directory` check has nothing to refuse), with a plain `HEAD`, `objects/` and
 * `refs/`, and no configuration that could move the worktree or make the repository bare (`core.worktree`,
 * `core.bare`, includes, extensions). Anything else (a `.git` file: a linked worktree or a submodule;
 * a symlinked `.git`; a folder inside a git directory; a mount point crossed before `.git` is found;
 * an environment variable that changes discovery) is undefined.
 */
import type { Stats } from "node:fs";
import { delimiter, dirname, isAbsolute, join, resolve } from "node:path";
import { lstatSync, readFileSync, realpathSync, statSync } from "../files/node-fs.ts";

/**
 * Git's environment variables that change where or whether git finds a repository, as git reads them
 * during discovery (git's `setup.c`): when one is set, this answer is undefined. The ones that point
 * git at another repository (GIT_DIR, GIT_WORK_TREE...) are not here: loopwright's git runs without
 * them (see `repositoryLocatingVariables` in git.ts). GIT_CEILING_DIRECTORIES is honoured below.
 */
const discoveryVariables = [
  /^GIT_DISCOVERY_ACROSS_FILESYSTEM$/,
  /^GIT_CONFIG$/,
  /^GIT_CONFIG_PARAMETERS$/,
  /^GIT_CONFIG_COUNT$/,
  /^GIT_CONFIG_(KEY|VALUE)_/,
  /^GIT_TEST_/,
];

/** A repository's top level and its git directory (both real paths), as `resolveRepository` returns them. */
export interface PlainRepository {
  root: string;
  commonDirectory: string;
}

/**
 * The main worktree that holds the existing folder `absolute`, read from the file system; undefined
 * whenever git might answer otherwise (see the file's comment). Never throws.
 */
export function plainRepositoryAt(
  absolute: string,
  env: NodeJS.ProcessEnv = process.env,
): PlainRepository | undefined {
  const names = Object.keys(env).filter((name) => env[name] !== undefined);
  if (names.some((name) => discoveryVariables.some((pattern) => pattern.test(name)))) return undefined;
  try {
    const ceilings = ceilingDirectories(env.GIT_CEILING_DIRECTORIES);
    if (ceilings === undefined) return undefined;
    let folder = realpathSync(absolute);
    const device = statSync(folder).dev;
    while (true) {
      const dotGit = lstatOrUndefined(join(folder, ".git"));
      if (dotGit) return dotGit.isDirectory() ? plainGitDirectory(folder, dotGit, env) : undefined;
      // A folder that is itself a git directory (inside `.git`, a bare repository): git's own answer.
      if (lstatOrUndefined(join(folder, "HEAD"))) return undefined;
      const parent = dirname(folder);
      // The root, or a mount point git would not cross without GIT_DISCOVERY_ACROSS_FILESYSTEM.
      if (parent === folder || statSync(parent).dev !== device) return undefined;
      // git never looks into a ceiling directory from below.
      if (ceilings.has(parent)) return undefined;
      folder = parent;
    }
  } catch {
    return undefined;
  }
}

/**
 * GIT_CEILING_DIRECTORIES as a set of absolute paths, each as written and resolved (git resolves them
 * unless an empty entry comes first; either way the walk stops); undefined for an entry that is not
 * absolute, which is git's to interpret.
 */
function ceilingDirectories(variable: string | undefined): Set<string> | undefined {
  const ceilings = new Set<string>();
  for (const entry of (variable ?? "").split(delimiter)) {
    if (entry === "") continue;
    if (!isAbsolute(entry)) return undefined;
    ceilings.add(resolve(entry));
    try {
      ceilings.add(realpathSync(entry));
    } catch {
      // A ceiling that does not exist stops nothing beyond its written path.
    }
  }
  return ceilings;
}

/** `<top>/.git`, a real folder, as a plain repository; undefined for anything git might treat otherwise. */
function plainGitDirectory(top: string, dotGit: Stats, env: NodeJS.ProcessEnv): PlainRepository | undefined {
  const gitDirectory = join(top, ".git");
  const user = process.geteuid?.();
  // git refuses a repository owned by someone else unless `safe.directory` says otherwise, and under
  // sudo it compares with SUDO_UID: both cases are git's to decide.
  if (user === undefined || (user === 0 && env.SUDO_UID !== undefined)) return undefined;
  if (dotGit.uid !== user || statSync(top).uid !== user) return undefined;
  if (!statSync(join(gitDirectory, "objects")).isDirectory()) return undefined;
  if (!lstatSync(join(gitDirectory, "refs")).isDirectory()) return undefined;
  // A `commondir` file makes this the private folder of a linked worktree.
  if (lstatOrUndefined(join(gitDirectory, "commondir"))) return undefined;
  const head = lstatSync(join(gitDirectory, "HEAD"));
  if (!head.isFile() || !validHead(readFileSync(join(gitDirectory, "HEAD"), "utf8"))) return undefined;
  if (!plainConfig(readFileSync(join(gitDirectory, "config"), "utf8"))) return undefined;
  return { root: top, commonDirectory: gitDirectory };
}

/** `ref: refs/...` or an object id: what git accepts as HEAD. */
function validHead(text: string): boolean {
  return /^ref: refs\/\S+\n?$/.test(text) || /^([0-9a-f]{40}|[0-9a-f]{64})\n?$/.test(text);
}

/**
 * True when the repository's own configuration cannot move the worktree or make the repository bare:
 * no `worktree` anywhere, no include, no extensions section, format version 0 or 1, and `bare` only
 * as false, each on a line of its own. Judged on the text, word by word: anything unusual is not plain.
 */
export function plainConfig(text: string): boolean {
  const lower = text.toLowerCase();
  if (/worktree|include|\[\s*extensions/.test(lower)) return false;
  for (const line of lower.split("\n")) {
    if (!/bare|repositoryformatversion/.test(line)) continue;
    // Either word anywhere else (after a section header on the same line, `[core] bare = true`; in a
    // continued line; in a value) is not judged here: git answers.
    const setting = /^\s*(bare|repositoryformatversion)\b\s*(=\s*(.*?))?\s*$/.exec(line);
    if (!setting) return false;
    const value = setting[3];
    if (setting[1] === "bare" && !(value && /^(false|no|off|0)$/.test(value))) return false;
    if (setting[1] === "repositoryformatversion" && !(value && /^[01]$/.test(value))) return false;
  }
  return true;
}

function lstatOrUndefined(path: string): Stats | undefined {
  return lstatSync(path, { throwIfNoEntry: false });
}
