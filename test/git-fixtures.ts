/**
 * Real git repositories in temporary folders for the git-layer tests. Importing this module isolates
 * git from the machine's configuration: an empty global config, no system config, no identity in the
 * environment, and no repository discovery above the temporary folder.
 */

import { mkdir, mkdtemp, realpath, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { after } from "node:test";
import { git } from "../src/git/git.ts";
import { isolateGit } from "./support/isolated-git.ts";

const base = await realpath(await mkdtemp(join(tmpdir(), "loopwright-git-test-")));
after(() => rm(base, { recursive: true, force: true }));

const globalConfig = join(base, "global.gitconfig");
await writeFile(globalConfig, "");
isolateGit(process.env, globalConfig);
process.env.GIT_CEILING_DIRECTORIES = base;

/** An identity for setup commits, passed with `-c` so no repository config is written. */
export const setupIdentity = ["-c", "user.name=Test Setup", "-c", "user.email=setup@example.com"];

let counter = 0;

/** A new empty folder (real path) under the test's temporary base, removed after the test file. */
export async function newFolder(label = "folder"): Promise<string> {
  counter += 1;
  const folder = join(base, `${label}-${counter}`);
  await mkdir(folder, { recursive: true });
  return folder;
}

/** Writes files (paths relative to `folder`, parents created). */
export async function writeFiles(folder: string, files: Record<string, string>): Promise<void> {
  for (const [path, content] of Object.entries(files)) {
    await mkdir(dirname(join(folder, path)), { recursive: true });
    await writeFile(join(folder, path), content);
  }
}

/**
 * A repository on branch `main` with one commit holding `files` (by default a README and a
 * `.gitignore` that ignores `node_modules/` and `.env`). Returns its root.
 */
export async function newRepository(
  files: Record<string, string> = { "README.md": "# demo\n", ".gitignore": "node_modules/\n.env\n" },
): Promise<string> {
  const root = await newFolder("repository");
  await git(["init", "--quiet", "--initial-branch=main"], root);
  await writeFiles(root, files);
  await git(["add", "--all"], root);
  await git([...setupIdentity, "commit", "--quiet", "-m", "initial"], root);
  return root;
}

/** Commits everything in `folder` with the setup identity and returns the new HEAD. */
export async function commitEverything(folder: string, message: string): Promise<string> {
  await git(["add", "--all"], folder);
  await git([...setupIdentity, "commit", "--quiet", "-m", message], folder);
  return git(["rev-parse", "HEAD"], folder, { trim: true });
}

/** `git status --porcelain` plus the current branch: what a user sees of their checkout. */
export async function checkoutState(
  folder: string,
): Promise<{ branch: string; status: string; head: string }> {
  return {
    branch: await git(["symbolic-ref", "--short", "HEAD"], folder, { trim: true }),
    status: await git(["status", "--porcelain=v1", "--untracked-files=all"], folder),
    head: await git(["rev-parse", "HEAD"], folder, { trim: true }),
  };
}
