/**
 * The sandbox of one engine turn. A maker writes its worktree, the temporary folder and its program's
 * own state; it may add objects and refs to the repository's git folder but not change its config,
 * hooks or attributes, nor touch the user's checkout or loopwright's state. A read-only turn (verifier,
 * replanner) writes only the temporary folder and its program's state, and does not even see
 * loopwright's state (the maker's transcript and brief, the database): of the loop it sees its
 * worktree and the evidence it is pointed at.
 */

import { tmpdir } from "node:os";
import { basename, dirname, isAbsolute, join, resolve } from "node:path";
import { existsSync, mkdirSync, readFileSync, realpathSync } from "../files/node-fs.ts";
import { loopwrightHome } from "../paths.ts";
import type { SandboxMount, SandboxPlan } from "./sandbox-plan.ts";

export interface TurnSandboxShape {
  readOnly: boolean;
  /** The turn's worktree. */
  cwd: string;
  /** Where loopwright keeps the turn's files (the iteration folder): hidden from a read-only turn. */
  turnDirectory: string;
  /** Files outside the worktree a read-only turn may read (gate logs, the diff, its own brief). */
  evidence?: string[];
  /** Folders and files the agent program keeps its own state in (its login, sessions, cache). */
  programState?: string[];
  /** The environment the turn runs with (for loopwright's home). */
  env?: Record<string, string | undefined>;
}

/**
 * The plan of one turn (see the header). Reads the worktree's `.git` file to find its git folders, and
 * may create a missing `hooks` or `info` folder in the shared one; paths are resolved later
 * (`resolvePlan`), so missing ones are simply left out.
 */
export function turnSandboxPlan(turn: TurnSandboxShape): SandboxPlan {
  const home = loopwrightHome({ ...process.env, ...turn.env });
  const git = gitFolders(turn.cwd);
  const write = (path: string): SandboxMount => ({ access: "write", path });
  const read = (path: string): SandboxMount => ({ access: "read", path });
  const hide = (path: string): SandboxMount => ({ access: "hide", path });
  // The user's repository: the one whose objects the checkout borrows, or whose worktree it is.
  const userGit = [...git.borrowed, ...(git.worktreeFolder && git.common ? [git.common] : [])];
  const userCheckout = userGit
    .filter((folder) => basename(folder) === ".git")
    .map((folder) => dirname(folder));
  const programState = (turn.programState ?? []).map(write);
  if (turn.readOnly)
    return {
      mounts: [
        write(tmpdir()),
        hide(home),
        hide(turn.turnDirectory),
        ...[...userCheckout, ...userGit, ...git.folders, turn.cwd, ...(turn.evidence ?? [])].map(read),
        ...programState,
      ],
    };
  const protectedGit = git.common ? protectedGitPaths(git.common).map(read) : [];
  return {
    mounts: [
      write(tmpdir()),
      read(home),
      ...[...userCheckout, ...git.borrowed].map(read),
      ...(git.common ? [write(git.common)] : []),
      write(turn.cwd),
      ...(git.worktreeFolder ? [write(git.worktreeFolder)] : []),
      // After the worktree, whose own `.git` folder (a plain clone) is inside it.
      ...protectedGit,
      ...(git.worktreeFolder ? [read(join(git.worktreeFolder, "config.worktree"))] : []),
      ...programState,
    ],
  };
}

/**
 * What a maker must not change in the shared git folder: its config, hooks and info (attributes,
 * excludes). A missing `hooks` or `info` folder is created first (as `git init` would), so that the
 * maker cannot create one and plant a hook that runs on the user's next commit.
 */
function protectedGitPaths(common: string): string[] {
  for (const folder of ["hooks", "info"]) {
    try {
      mkdirSync(join(common, folder), { recursive: true });
    } catch {
      // A read-only repository: nothing can be planted there either.
    }
  }
  return ["config", "hooks", "info"].map((name) => join(common, name));
}

/**
 * The worktree's git folders: its `.git` folder, or the folder its `.git` file names (`worktreeFolder`)
 * and that folder's common folder (`common`), so git works in the sandbox.
 */
export function gitFolders(worktree: string): {
  folders: string[];
  common?: string;
  worktreeFolder?: string;
  /** Git folders whose objects the checkout's own `.git` borrows (`objects/info/alternates`). */
  borrowed: string[];
} {
  const dotGit = resolve(worktree, ".git");
  let text: string;
  try {
    text = readFileSync(dotGit, "utf8");
  } catch {
    if (!existsSync(dotGit)) return { folders: [], borrowed: [] };
    return { folders: [dotGit], common: dotGit, borrowed: borrowedGitFolders(dotGit) };
  }
  const named = /^gitdir: (.+)$/m.exec(text)?.[1]?.trim();
  if (!named) return { folders: [], borrowed: [] };
  const worktreeFolder = isAbsolute(named) ? named : resolve(worktree, named);
  try {
    const line = readFileSync(resolve(worktreeFolder, "commondir"), "utf8").trim();
    const common = isAbsolute(line) ? line : resolve(worktreeFolder, line);
    return { folders: [worktreeFolder, common], common, worktreeFolder, borrowed: [] };
  } catch {
    return { folders: [worktreeFolder], worktreeFolder, borrowed: [] };
  }
}

/** The git folders of the object stores `gitFolder` borrows from (each line of its alternates). */
function borrowedGitFolders(gitFolder: string): string[] {
  try {
    const objects = join(gitFolder, "objects");
    return readFileSync(join(objects, "info", "alternates"), "utf8")
      .split("\n")
      .map((line) => line.trim())
      .filter((line) => line !== "" && !line.startsWith("#"))
      .map((line) => dirname(resolve(objects, line)));
  } catch {
    return [];
  }
}

/** The plan with every path real (symbolic links resolved) and the missing ones left out. */
export function resolvePlan(plan: SandboxPlan): SandboxPlan {
  const mounts = plan.mounts.flatMap((mount) => {
    try {
      const path = realpathSync(mount.path);
      // Hiding the root, or a folder holding the temporary folder, would hide everything.
      if (mount.access === "hide" && (path === "/" || isAncestorOf(path, realpathSync(tmpdir())))) return [];
      return [{ ...mount, path }];
    } catch {
      return [];
    }
  });
  return { mounts };
}

/** True when `path` is `folder` or inside it. */
function isAncestorOf(folder: string, path: string): boolean {
  return path === folder || path.startsWith(folder.endsWith("/") ? folder : `${folder}/`);
}
