/**
 * git through waiting shells answers exactly as execFile would in the hard cases: a process git leaves
 * behind that still holds its output, output past the cap arriving with the end marker, a git that
 * cannot be started (not executable, arguments too large), a git killed by a signal, the folder a
 * sequence's git is told it runs in (PWD), a shell that died while idle, network commands.
 */
import assert from "node:assert/strict";
import { existsSync } from "node:fs";
import { chmod, readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { describe, it } from "node:test";
import {
  gitBytes,
  gitResult,
  gitSequence,
  setShellRunner,
  startsNoProgram,
  startsNoProgramWithoutPromisor,
} from "../src/git/git.ts";
import { gitShellPids, useGitShells } from "../src/git/git-shells.ts";
import { newFolder, newRepository } from "./git-fixtures.ts";

const cap = 256 * 1024 * 1024;

/** A fake `git` (a Node script first on PATH) that does what its last argument says. */
async function fakeGit(): Promise<string> {
  const folder = await newFolder("exact-fake-git");
  const script = `#!${process.execPath}
const mode = process.argv.at(-1);
if (process.argv.includes("config")) {
  const line = process.env.FAKE_PROMISOR;
  if (line) process.stdout.write(line + "\\n");
  process.exit(line ? 0 : 1);
}
if (mode === "report") process.stdout.write(JSON.stringify({ env: process.env, parent: process.ppid }));
else if (mode === "selfkill") process.kill(process.pid, "SIGKILL");
else if (mode === "linger") {
  require("node:child_process").spawn("/bin/sh", ["-c", "sleep 0.5; printf 'LATE\\\\n'; printf 'LATE-ERR\\\\n' >&2"], { stdio: ["ignore", "inherit", "inherit"] }).unref();
  process.stdout.write("first\\n");
} else if (mode === "count-then-kill-shell") {
  require("node:fs").appendFileSync(process.env.COUNT, "ran\\n");
  process.kill(0, "SIGKILL");
} else if (mode === "slow") setTimeout(() => process.stdout.write("second\\n"), 1000);
else if (mode === "big") {
  const block = Buffer.alloc(1024 * 1024, 97);
  let left = ${cap} - 100;
  const tail = () => setTimeout(() => { process.stdout.write(Buffer.alloc(200, 98)); }, 1000);
  while (left > 0) { const part = block.subarray(0, Math.min(left, block.length)); left -= part.length; process.stdout.write(part, left > 0 ? undefined : () => { require("node:fs").writeFileSync(process.env.FLAG, "1"); tail(); }); }
} else process.stdout.write("ok\\n");
`;
  await writeFile(join(folder, "git"), script);
  await chmod(join(folder, "git"), 0o755);
  return folder;
}

/** `run` with git started from this process, then through shells; a throw becomes its message. */
async function bothWays<T>(run: () => Promise<T>): Promise<{ spawned: T | string; shells: T | string }> {
  const settle = (pending: Promise<T>) => pending.catch((error: Error) => `threw: ${error.message}`);
  setShellRunner(undefined);
  const spawned = await settle(run());
  useGitShells();
  const shells = await settle(run());
  return { spawned, shells };
}

describe("git through shells: execFile's answers in the hard cases", () => {
  it("output of a process git left behind belongs to git's request, never to the next", async () => {
    const env = { PATH: `${await fakeGit()}:${process.env.PATH}` };
    setShellRunner(undefined);
    const spawned = await gitResult(["linger"], "/tmp", { env });
    useGitShells();
    const first = await gitResult(["linger"], "/tmp", { env });
    const second = await gitResult(["slow"], "/tmp", { env });
    assert.deepEqual(first, spawned);
    assert.deepEqual(first, { code: 0, stdout: "first\nLATE\n", stderr: "LATE-ERR\n", timedOut: false });
    assert.deepEqual(second, { code: 0, stdout: "second\n", stderr: "", timedOut: false });
  });

  it("output past the cap fails even when its last bytes arrive with the end marker", async () => {
    const flag = join(await newFolder("flag"), "flag");
    const env = { PATH: `${await fakeGit()}:${process.env.PATH}`, FLAG: flag };
    useGitShells();
    // Block this process while git writes its last bytes and the shell its marker: one read gets both.
    const poll = setInterval(() => {
      if (!existsSync(flag)) return;
      clearInterval(poll);
      setTimeout(() => Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 2000), 500);
    }, 5);
    const outcome = await gitBytes(["big"], "/tmp", { env }).then(
      (bytes) => `returned ${bytes.length} bytes`,
      (error: Error) => `threw: ${error.message}`,
    );
    clearInterval(poll);
    assert.match(outcome, /^threw/);
  });

  it("a git that cannot be started throws as with spawn: not executable, or arguments too large", async () => {
    const folder = await fakeGit();
    const env = { PATH: `${folder}:${process.env.PATH}` };
    await gitResult(["ok"], "/tmp", { env });
    await chmod(join(folder, "git"), 0o644);
    const denied = await bothWays(() => gitResult(["ok"], "/tmp", { env }));
    assert.match(String(denied.spawned), /^threw: cannot run git in \/tmp/);
    assert.match(String(denied.shells), /^threw: cannot run git in \/tmp/);
    const repo = await newRepository();
    const long = "a".repeat(200_000);
    const tooLarge = await bothWays(() => gitResult(["rev-parse", long], repo));
    assert.match(String(tooLarge.spawned), /^threw: cannot run git in .*E2BIG/);
    assert.match(String(tooLarge.shells), /^threw: cannot run git in .*E2BIG/);
  });

  it("a git killed by a signal: 128 + the signal's number, no shell message, either way", async () => {
    const env = { PATH: `${await fakeGit()}:${process.env.PATH}` };
    const { spawned, shells } = await bothWays(() => gitResult(["selfkill"], "/tmp", { env }));
    assert.deepEqual(spawned, { code: 137, stdout: "", stderr: "", timedOut: false });
    assert.deepEqual(shells, spawned);
    // The same through a shell's direct path (a subcommand that starts no other program).
    assert.deepEqual(await gitResult(["rev-parse", "selfkill"], "/tmp", { env }), spawned);
  });

  it("a sequence's git gets the PWD /bin/sh started from this process gives it", async () => {
    const env = { PATH: `${await fakeGit()}:${process.env.PATH}` };
    const cwd = await newFolder("sequence-cwd");
    const pwd = (value: unknown) => (typeof value === "string" ? JSON.parse(value).env.PWD : value);
    const { spawned, shells } = await bothWays(() => gitSequence([["ok"], ["report"]], cwd, { env }));
    assert.equal(pwd(spawned), cwd);
    assert.equal(pwd(shells), pwd(spawned));
  });

  it("a shell that died while idle does not fail the next git, however soon it is asked", async () => {
    const env = { PATH: `${await fakeGit()}:${process.env.PATH}` };
    useGitShells();
    // The request is written before this process learns of the death (no tick in between), and again
    // after; each time the shell may or may not have read it: either way git runs once, elsewhere.
    for (const wait of [false, true, false, false, true]) {
      await gitResult(["ok"], "/tmp", { env });
      for (const pid of gitShellPids()) process.kill(pid, "SIGKILL");
      if (wait) await new Promise((resolve) => setTimeout(resolve, 0));
      const outcome = await gitResult(["ok"], "/tmp", { env }).catch(
        (error: Error) => `threw: ${error.message}`,
      );
      assert.deepEqual(outcome, { code: 0, stdout: "ok\n", stderr: "", timedOut: false });
    }
  });

  it("a shell that dies once its git started fails that git, which is not run again", async () => {
    const count = join(await newFolder("killed-shell-count"), "count");
    const env = { PATH: `${await fakeGit()}:${process.env.PATH}`, COUNT: count };
    useGitShells();
    const outcome = await gitResult(["count-then-kill-shell"], "/tmp", { env }).catch(
      (error: Error) => `threw: ${error.message}`,
    );
    assert.match(String(outcome), /^threw: cannot run git in \/tmp: the git shell ended/);
    assert.equal(await readFile(count, "utf8"), "ran\n");
    assert.deepEqual(await gitResult(["ok"], "/tmp", { env }), {
      code: 0,
      stdout: "ok\n",
      stderr: "",
      timedOut: false,
    });
  });

  it("only subcommands that can start no other program skip the cats", () => {
    assert.equal(startsNoProgram(["rev-parse", "HEAD"]), true);
    assert.equal(startsNoProgram(["-c", "x.y=1", "cat-file", "--batch"]), true);
    assert.equal(startsNoProgram(["cat-file", "--filters", "HEAD:a"]), false);
    assert.equal(startsNoProgram(["commit-tree", "-S", "t"]), false);
    for (const command of ["add", "checkout", "read-tree", "status", "diff", "commit", "hash-object", "push"])
      assert.equal(startsNoProgram([command]), false, command);
  });

  it("a loop's private git directory adds the subcommands that start only configured drivers", () => {
    const privateEnv = { GIT_CONFIG_NOSYSTEM: "1", GIT_CONFIG_GLOBAL: "/dev/null", GIT_DIR: "/state/git" };
    for (const command of ["add", "read-tree", "clean", "ls-files", "diff-tree"])
      assert.equal(startsNoProgram([command], privateEnv), true, command);
    // Porcelain, an option that runs a driver, a setting on the command line, a driver given by a
    // variable, or the user's own configuration: the cats.
    for (const command of ["diff", "status", "checkout", "commit", "push"])
      assert.equal(startsNoProgram([command], privateEnv), false, command);
    assert.equal(startsNoProgram(["diff-tree", "--ext-diff"], privateEnv), false);
    assert.equal(startsNoProgram(["diff-tree", "--textconv"], privateEnv), false);
    assert.equal(startsNoProgram(["-c", "filter.x.clean=cat", "add"], privateEnv), false);
    // A setting that names a file to read, never a program (the gates' clean): no cats. Any other
    // setting beside it, or one given by a variable, sends the cats again.
    const clean = ["-c", "core.excludesFile=/dev/null", "clean", "-ffd", "-e", "!.gitignore"];
    assert.equal(startsNoProgram(clean, privateEnv), true);
    assert.equal(startsNoProgram(["-c", "CORE.EXCLUDESFILE=/x", "clean"], privateEnv), true);
    assert.equal(startsNoProgram(["-c", "filter.x.clean=cat", ...clean], privateEnv), false);
    assert.equal(
      startsNoProgram([...clean.slice(0, 2), "-c", "core.fsmonitor=/x", "clean"], privateEnv),
      false,
    );
    assert.equal(startsNoProgram(["-c", "core.excludesFile.x=1", "clean"], privateEnv), false);
    assert.equal(startsNoProgram(["--config-env=filter.x.clean=X", "add"], privateEnv), false);
    assert.equal(startsNoProgram(["-c"], privateEnv), false);
    assert.equal(startsNoProgram(clean), false);
    for (const variable of ["GIT_CONFIG_PARAMETERS", "GIT_CONFIG_COUNT", "GIT_CONFIG", "GIT_EXTERNAL_DIFF"])
      assert.equal(startsNoProgram(["add"], { ...privateEnv, [variable]: "x" }), false, variable);
    assert.equal(startsNoProgram(["add"], { ...privateEnv, GIT_CONFIG_GLOBAL: "/home/u/.gitconfig" }), false);
    assert.equal(
      startsNoProgram(["add"], { GIT_CONFIG_NOSYSTEM: "1", GIT_CONFIG_GLOBAL: "/dev/null" }),
      false,
    );
  });

  it("a diff-tree with no external diff and no text conversion starts no program but a lazy fetch", () => {
    const patch = [
      "-c",
      "core.quotePath=false",
      "diff-tree",
      "--stdin",
      "-p",
      "--no-ext-diff",
      "--no-textconv",
    ];
    assert.equal(startsNoProgram(patch), false);
    assert.equal(startsNoProgramWithoutPromisor(patch), true);
    assert.equal(startsNoProgramWithoutPromisor(["diff-tree", "-p", "--no-ext-diff"]), false);
    assert.equal(startsNoProgramWithoutPromisor(["diff-tree", "-p", "--no-textconv"]), false);
    assert.equal(startsNoProgramWithoutPromisor([...patch, "--ext-diff"]), false);
    assert.equal(startsNoProgramWithoutPromisor([...patch, "--textconv"]), false);
    assert.equal(startsNoProgramWithoutPromisor(["-c", "diff.x.command=cat", ...patch]), false);
    assert.equal(startsNoProgramWithoutPromisor(["diff", "-p", "--no-ext-diff", "--no-textconv"]), false);
    for (const variable of ["GIT_CONFIG_PARAMETERS", "GIT_CONFIG_COUNT", "GIT_CONFIG", "GIT_EXTERNAL_DIFF"])
      assert.equal(startsNoProgramWithoutPromisor(patch, { [variable]: "x" }), false, variable);
  });

  it("in a partial clone such a diff-tree's output is waited for as any git's that may start a program", async () => {
    // The fake git's configuration names a promisor remote: a process it leaves behind (as a lazy fetch
    // would) still writes into this request's output, never the next one's.
    const env = {
      PATH: `${await fakeGit()}:${process.env.PATH}`,
      FAKE_PROMISOR: "remote.origin.promisor true",
    };
    const cwd = await newFolder("partial-clone");
    useGitShells();
    const patch = ["diff-tree", "--no-ext-diff", "--no-textconv", "linger"];
    const first = await gitResult(patch, cwd, { env });
    const second = await gitResult(["slow"], cwd, { env });
    assert.deepEqual(first, { code: 0, stdout: "first\nLATE\n", stderr: "LATE-ERR\n", timedOut: false });
    assert.deepEqual(second, { code: 0, stdout: "second\n", stderr: "", timedOut: false });
  });

  it("a diff-tree's patch through the shells is the one git prints started from this process", async () => {
    const repo = await newRepository({ "a.txt": "one\n", ".gitattributes": "*.txt diff=x\n" });
    await writeFile(join(repo, "a.txt"), "two\n");
    await gitResult(["-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qam", "two"], repo);
    const args = [
      "-c",
      "core.quotePath=false",
      "diff-tree",
      "-r",
      "-p",
      "--no-ext-diff",
      "--no-textconv",
      "HEAD~1",
      "HEAD",
    ];
    const { spawned, shells } = await bothWays(() => gitResult(args, repo));
    assert.deepEqual(shells, spawned);
    assert.match(String((spawned as { stdout: string }).stdout), /^\+two$/m);
  });

  it("the gates' clean through the shells (no cats) answers as git started from this process", async () => {
    const repo = await newRepository({ "a.txt": "one\n", ".gitignore": "*.log\n" });
    const privateGit = join(await newFolder("private-clean"), "git");
    await gitResult(["init", "--quiet", "--bare", "--template=", privateGit], "/tmp");
    const env = {
      GIT_CONFIG_NOSYSTEM: "1",
      GIT_CONFIG_GLOBAL: "/dev/null",
      GIT_DIR: privateGit,
      GIT_WORK_TREE: repo,
      GIT_INDEX_FILE: join(privateGit, "gates.index"),
    };
    await gitResult(["add", "--all"], repo, { env });
    const clean = ["-c", "core.excludesFile=/dev/null", "clean", "-ffd", "-e", "!.gitignore"];
    assert.equal(startsNoProgram(clean, env), true);
    const plant = () =>
      Promise.all([
        writeFile(join(repo, 'new "odd" name.txt'), "x\n"),
        writeFile(join(repo, "kept.log"), "x\n"),
      ]);
    const { spawned, shells } = await bothWays(async () => {
      await plant();
      return gitResult(clean, repo, { env });
    });
    assert.deepEqual(shells, spawned);
    assert.match(String((spawned as { stdout: string }).stdout), /^Removing "new \\"odd\\" name.txt"$/m);
    assert.equal(await readFile(join(repo, "kept.log"), "utf8"), "x\n");
  });

  it("network commands (push, fetch, ls-remote) start git from this process", async () => {
    const env = { PATH: `${await fakeGit()}:${process.env.PATH}` };
    useGitShells();
    for (const command of ["push", "fetch", "ls-remote", "pull", "clone"]) {
      const report = JSON.parse((await gitResult([command, "report"], "/tmp", { env })).stdout);
      assert.equal(report.parent, process.pid, command);
    }
    const local = JSON.parse((await gitResult(["status", "report"], "/tmp", { env })).stdout);
    assert.notEqual(local.parent, process.pid);
  });
});
