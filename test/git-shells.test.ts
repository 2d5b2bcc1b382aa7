/**
 * git through waiting shells (git-server.ts): the same answers as git started from this process, for
 * arguments, input and environment values the shell must never read as code, binary and NUL-separated
 * output, failures, a missing folder, sequences, and more requests at once than there are shells.
 */
import assert from "node:assert/strict";
import { readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { describe, it } from "node:test";
import { GitError, git, gitBytes, gitSequence, keptOutput } from "../src/git/git.ts";
import { shellQuote, useGitShells } from "../src/git/git-server.ts";
import { newFolder, newRepository, setupIdentity } from "./git-fixtures.ts";

/** The pid of the process that started git (git runs an alias through a shell whose parent is git). */
const starterOf = (cwd: string) =>
  git(["-c", "alias.starter=!ps -o ppid= -p $PPID", "starter"], cwd, { trim: true }).then(Number);

const awkward = [
  "it's",
  '"double" $HOME `date` $(date) \\ ; | & > < * ? [a] ~ #',
  "line one\nline two",
  "  spaces  ",
  "-leading-dash",
  "",
  "é ü 中文",
];

describe("git through waiting shells", () => {
  it("starts git from a shell once enabled, with the same answers as before", async () => {
    const root = await newRepository({ "a.txt": "a\n" });
    assert.equal(await starterOf(root), process.pid);
    useGitShells();
    assert.notEqual(await starterOf(root), process.pid);
    // Arguments and input the shell must take as data.
    for (const value of awkward) {
      await git(["config", "loopwright.value", value], root);
      assert.equal(await git(["config", "--get", "loopwright.value"], root), `${value}\n`);
      const blob = await git(["hash-object", "-w", "--stdin"], root, { input: value, trim: true });
      assert.equal(await git(["cat-file", "blob", blob], root), value);
    }
  });

  it("passes environment values verbatim, and unsets what the command's environment lacks", async () => {
    useGitShells();
    const root = await newRepository({ "a.txt": "a\n" });
    for (const value of awkward) {
      const shown = await git(["var", "GIT_AUTHOR_IDENT"], root, {
        env: { GIT_AUTHOR_NAME: `x${value}x`.replace(/[<>\n]/g, ""), GIT_AUTHOR_EMAIL: "a@b" },
      });
      assert.ok(shown.startsWith(`x${value}x`.replace(/[<>\n]/g, "")), shown);
    }
    // Inherited variables that point git elsewhere are removed for every command, shells included.
    const saved = process.env.GIT_DIR;
    process.env.GIT_DIR = "/nonexistent";
    try {
      assert.equal(await git(["rev-parse", "--is-inside-work-tree"], root, { trim: true }), "true");
    } finally {
      if (saved === undefined) delete process.env.GIT_DIR;
      else process.env.GIT_DIR = saved;
    }
  });

  it("returns binary and NUL-separated output byte for byte", async () => {
    useGitShells();
    const root = await newRepository({ "a.txt": "a\n" });
    const bytes = Buffer.from([0, 1, 2, 255, 254, 10, 13, 0, 39, 34]);
    await writeFile(join(root, "binary.bin"), bytes);
    const blob = await git(["hash-object", "-w", "binary.bin"], root, { trim: true });
    assert.deepEqual(await gitBytes(["cat-file", "blob", blob], root), bytes);
    await writeFile(join(root, "b c.txt"), "b\n");
    assert.equal(await git(["ls-files", "-z", "--others"], root), "b c.txt\0binary.bin\0");
  });

  it("fails as git started from here fails: git's message, and a missing folder named", async () => {
    useGitShells();
    const root = await newRepository({ "a.txt": "a\n" });
    await assert.rejects(
      git(["rev-parse", "--verify", "no-such-ref"], root),
      (error: unknown) => error instanceof GitError && error.code === 128 && /fatal/.test(error.message),
    );
    await assert.rejects(
      git(["status"], join(root, "missing")),
      /cannot run git in .*missing: git is not installed or .* does not exist/,
    );
  });

  it("runs sequences with kept output and guards as before", async () => {
    useGitShells();
    const root = await newRepository({ "a.txt": "a\n" });
    const head = await git(["rev-parse", "HEAD"], root, { trim: true });
    const tree = await gitSequence(
      [
        ["rev-parse", "HEAD"],
        ["rev-parse", `${keptOutput}`],
      ],
      root,
      { trim: true, resultOf: 0, onlyIf: head },
    );
    assert.equal(tree, head);
    await assert.rejects(
      gitSequence([["rev-parse", "HEAD"], ["rev-parse", "--verify", "nothing"], ["status"]], root),
      (error: unknown) =>
        error instanceof GitError && /git rev-parse HEAD && git rev-parse/.test(error.message),
    );
    const commit = await gitSequence(
      [
        [...setupIdentity, "commit-tree", `${head}^{tree}`, "-p", head, "-F", "-"],
        ["update-ref", "refs/heads/shells", keptOutput, ""],
      ],
      root,
      { input: "a message with 'quotes' and $dollars\n", trim: true, resultOf: 0 },
    );
    assert.equal(
      await git(["log", "-1", "--format=%B", "refs/heads/shells"], root),
      "a message with 'quotes' and $dollars\n\n",
    );
    assert.equal(await git(["rev-parse", "refs/heads/shells"], root, { trim: true }), commit);
  });

  it("serves more requests at once than it has shells, each its own answer", async () => {
    useGitShells();
    const root = await newRepository({ "a.txt": "a\n" });
    const values = Array.from({ length: 12 }, (_, index) => `value ${index}`);
    const blobs = await Promise.all(
      values.map((value) => git(["hash-object", "--stdin"], root, { input: value, trim: true })),
    );
    const expected = await Promise.all(
      values.map((value) => git(["hash-object", "--stdin"], root, { input: value, trim: true })),
    );
    assert.deepEqual(blobs, expected);
    assert.equal(new Set(blobs).size, values.length);
  });

  it("quotes for the shell so that it reads back exactly the value", async () => {
    const folder = await newFolder("quote");
    const script = join(folder, "echo.sh");
    await writeFile(script, awkward.map((value) => `printf '%s\\0' ${shellQuote(value)}`).join("\n"));
    const { execFile } = await import("node:child_process");
    const output = await new Promise<string>((resolve, reject) =>
      execFile("/bin/sh", [script], (error, stdout) => (error ? reject(error) : resolve(stdout))),
    );
    assert.deepEqual(output.split("\0").slice(0, -1), awkward);
    assert.ok((await readFile(script, "utf8")).length > 0);
  });
});
