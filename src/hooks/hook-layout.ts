/**
 * Where hook mode keeps things: `.loopwright/` at the root of the user's checkout (the one place
 * loopwright writes inside a checkout), listed in the repository's `info/exclude` so git ignores it.
 */

import { dirname, isAbsolute, join, resolve } from "node:path";
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "../files/node-fs.ts";
import { gitResult } from "../git/git.ts";

/** The folder name, and the line hook mode adds to `.git/info/exclude`. */
export const stateFolderName = ".loopwright";
export const excludeLine = `/${stateFolderName}/`;
/** The spec hook mode reads, at the root of the checkout. */
export const specFileName = "loop.yaml";

/** Every path of hook mode in the checkout at `root`. */
export function hookLayout(root: string) {
  const directory = join(root, stateFolderName);
  // `directory` is normalized and ends in a name: a name appended with `/` is what join() would give
  // (14 joins, each normalizing the whole path, were most of a hook's path work).
  const inside = (name: string) => `${directory}/${name}`;
  return {
    root,
    spec: join(root, specFileName),
    directory,
    /** Hook mode's counters and open work. */
    state: inside("state.json"),
    stateLock: inside("state.lock"),
    /** Its presence switches every hook off. */
    off: inside("off"),
    /** The reviewer's last report, verbatim. */
    report: inside("review.md"),
    /** The verdict the hook derived from it, stamped `writtenBy: hook`. */
    verdict: inside("verdict.json"),
    /** What the reviewer is asked to review: changed files and their diff. */
    reviewRequest: inside("review-request.md"),
    /** Full gate logs, one per gate. */
    logs: inside("logs"),
    /** The gates of loop.yaml, cached by the spec's content. */
    specCache: inside("spec-cache.json"),
    /** Internal failures, with stacks. */
    errors: inside("hook-errors.log"),
    /** The launcher `init claude` writes: runs the hooks with a pinned Node. */
    launcher: inside("hook"),
    /** What `init claude` added, so that `--remove` takes exactly that out. */
    installRecord: inside("installed.json"),
  };
}
export type HookLayout = ReturnType<typeof hookLayout>;

/** The nearest folder at or above `start` that holds `.git` (a folder, or a file in a linked worktree). */
export function findCheckoutRoot(start: string): string | undefined {
  let current = resolve(start);
  while (true) {
    if (existsSync(join(current, ".git"))) return current;
    const parent = dirname(current);
    if (parent === current) return undefined;
    current = parent;
  }
}

/**
 * Creates `.loopwright/` when missing; on creation, adds it to the repository's `info/exclude` (the
 * first hook to run after a clone or a deleted folder hides it from git again).
 */
export async function ensureStateFolder(layout: HookLayout): Promise<void> {
  if (existsSync(layout.directory)) return;
  mkdirSync(layout.directory, { recursive: true });
  await ensureExcluded(layout.root);
}

/** The absolute path of the repository's `info/exclude` for the checkout at `root`. */
export async function excludeFilePath(root: string): Promise<string> {
  const result = await gitResult(["rev-parse", "--git-path", "info/exclude"], root, { trim: true });
  if (result.code !== 0) throw new Error(`cannot find the git folder of ${root}: ${result.stderr.trim()}`);
  return isAbsolute(result.stdout) ? result.stdout : resolve(root, result.stdout);
}

/** Adds `/.loopwright/` to `info/exclude` unless a line already says so. Returns true when it added it. */
export async function ensureExcluded(root: string): Promise<boolean> {
  const path = await excludeFilePath(root);
  const text = existsSync(path) ? readFileSync(path, "utf8") : "";
  if (text.split("\n").some((line) => line.trim() === excludeLine)) return false;
  mkdirSync(dirname(path), { recursive: true });
  const separator = text === "" || text.endsWith("\n") ? "" : "\n";
  writeFileSync(path, `${text}${separator}${excludeLine}\n`);
  return true;
}
