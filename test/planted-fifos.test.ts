/**
 * releaseFifosUnder (src/git/planted-fifos.ts): a reader blocked opening a FIFO named .gitignore or
 * .gitattributes (any case) under the folder is let go, reading nothing; FIFOs of other names, those
 * inside .git and those behind a symbolic link are left alone; a FIFO nobody reads is not touched.
 */
import assert from "node:assert/strict";
import { spawn, spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync, symlinkSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, test } from "node:test";
import { releaseFifosUnder } from "../src/git/planted-fifos.ts";

const root = mkdtempSync(join(tmpdir(), "loopwright-fifos-"));
after(() => rmSync(root, { recursive: true, force: true }));

const fifo = (path: string) => assert.equal(spawnSync("mkfifo", [path]).status, 0);
const readers: import("node:child_process").ChildProcess[] = [];
after(() => {
  for (const child of readers) child.kill("SIGKILL");
});
/** A `cat` of `path` (blocked opening it until a writer comes): resolves when it ends. */
const reader = (path: string) => {
  const child = spawn("cat", [path], { stdio: "ignore" });
  readers.push(child);
  return new Promise<number | null>((resolve) => child.on("exit", resolve));
};
const settled = <T>(promise: Promise<T>, ms: number) =>
  Promise.race([
    promise.then(() => true),
    new Promise<boolean>((resolve) => setTimeout(() => resolve(false), ms)),
  ]);

test("readers blocked on planted ignore and attributes FIFOs are let go; other FIFOs are not", async () => {
  const tree = join(root, "tree");
  mkdirSync(join(tree, "sub", "deeper"), { recursive: true });
  mkdirSync(join(tree, ".git"));
  mkdirSync(join(root, "outside"));
  fifo(join(tree, "sub", ".gitignore"));
  fifo(join(tree, "sub", "deeper", ".GitAttributes"));
  fifo(join(tree, "named-otherwise"));
  fifo(join(tree, ".git", ".gitignore"));
  fifo(join(root, "outside", ".gitignore"));
  symlinkSync(join(root, "outside"), join(tree, "linked"));
  mkdirSync(join(root, "quiet"));
  fifo(join(root, "quiet", ".gitignore"));
  const released = [
    reader(join(tree, "sub", ".gitignore")),
    reader(join(tree, "sub", "deeper", ".GitAttributes")),
  ];
  const kept = [
    reader(join(tree, "named-otherwise")),
    reader(join(tree, ".git", ".gitignore")),
    reader(join(tree, "linked", ".gitignore")),
  ];
  // The readers open their FIFOs once started: wait until a pass lets both go.
  let count = 0;
  for (let attempt = 0; attempt < 50 && count < 2; attempt++) {
    await new Promise((resolve) => setTimeout(resolve, 50));
    count += releaseFifosUnder(tree);
  }
  assert.equal(count, 2);
  for (const done of released) assert.equal(await settled(done, 5000), true);
  for (const waiting of kept) assert.equal(await settled(waiting, 300), false);
  // No reader: nothing to let go, nothing blocks.
  assert.equal(releaseFifosUnder(join(root, "quiet")), 0);
});

test("a slow network command (a fetch) leaves the FIFOs in its folder alone: it reads no ignore file", async () => {
  const { gitResult } = await import("../src/git/git.ts");
  const remote = join(root, "remote");
  const local = join(root, "local");
  mkdirSync(remote);
  mkdirSync(local);
  const git = (cwd: string, ...args: string[]) =>
    assert.equal(spawnSync("git", args, { cwd, stdio: "ignore" }).status, 0, args.join(" "));
  git(remote, "init", "-q");
  git(remote, "-c", "user.name=t", "-c", "user.email=t@e", "commit", "-q", "--allow-empty", "-m", "one");
  git(local, "init", "-q");
  fifo(join(local, ".gitignore"));
  const waiting = reader(join(local, ".gitignore"));
  // The remote answers after the relief's delay has passed: a command in a checkout would walk by then.
  const slowPack = `sh -c 'sleep 1.6; exec git-upload-pack "$@"' upload-pack`;
  const fetched = await gitResult(["fetch", "-q", `--upload-pack=${slowPack}`, remote], local);
  assert.equal(fetched.code, 0, fetched.stderr);
  assert.equal(await settled(waiting, 200), false, "the reader still waits: nobody opened its FIFO");
});
