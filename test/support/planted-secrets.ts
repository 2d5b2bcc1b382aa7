/**
 * Planting secrets and looking for them afterwards: a secret value and the environment that makes
 * loopwright hold it, and searches of the state folder (every file, the SQLite database and its WAL
 * included), printed output, and the objects of a repository (the user's and the pushed remote).
 */
import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import { readdir, readFile } from "node:fs/promises";
import { join } from "node:path";
import { promisify } from "node:util";
import type { Sandbox } from "./loop-sandbox.ts";

const execFileAsync = promisify(execFile);
export const secret = `sk-plant-${Math.random().toString(16).slice(2)}${Date.now().toString(16)}`;
export const secretEnvironment = { SERVICE_API_TOKEN: secret };

/** Every file under `folder` whose bytes contain `needle`. */
export async function filesContaining(folder: string, needle: string): Promise<string[]> {
  const found: string[] = [];
  const entries = await readdir(folder, { recursive: true, withFileTypes: true });
  for (const entry of entries) {
    if (!entry.isFile()) continue;
    const path = join(entry.parentPath, entry.name);
    const bytes = await readFile(path).catch(() => Buffer.alloc(0));
    if (bytes.includes(needle)) found.push(path);
  }
  return found;
}

/** Every object of a repository, decompressed, as one text (blobs, trees, commits). */
export async function allObjects(gitDirectory: string): Promise<string> {
  const { stdout } = await execFileAsync(
    "git",
    ["--git-dir", gitDirectory, "cat-file", "--batch-all-objects", "--batch", "--unordered"],
    { maxBuffer: 256 * 1024 * 1024, encoding: "latin1" },
  );
  return stdout;
}

/**
 * Asserts the planted secret is in no file of the state folder, none of `outputs`, none of the user's
 * git objects (unless `userObjects` is false: a maker that runs `git commit` itself writes objects
 * loopwright cannot take back), and none of the remote's objects.
 */
export async function assertNowhere(
  sandbox: Sandbox,
  outputs: string[],
  remote?: string,
  userObjects = true,
): Promise<void> {
  assert.deepEqual(await filesContaining(sandbox.home, secret), [], "no file of the state folder holds it");
  for (const output of outputs) assert.ok(!output.includes(secret), `printed: ${output.slice(0, 200)}`);
  if (userObjects) {
    assert.ok(!(await allObjects(join(sandbox.repo, ".git"))).includes(secret), "not in the user's objects");
  }
  if (remote) assert.ok(!(await allObjects(remote)).includes(secret), "not on the pushed remote");
}
