/**
 * What `validate` (and `run`) ask git before anything is spent: in the usual case (the spec's repo is a
 * main worktree, its base a commit) the repository and the base commit come from one git process,
 * counted with LOOPWRIGHT_GIT_TRACE; a linked worktree, a bad base and a repository without commits get
 * the answers and the errors they always had.
 */
import assert from "node:assert/strict";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { after, before, describe, test } from "node:test";
import { createSandbox, type Sandbox } from "./support/loop-sandbox.ts";

const spec = (extra = "", repo = "./repo") => `name: checked
goal: Be checked before anything is spent.
repo: ${repo}
maker: { engine: command, run: "true" }
verifier: { engine: command, run: "cat" }
gates:
  - { id: tests, kind: tests-pass, run: "true" }
${extra}`;

/** `validate <spec>` with the git trace on: its result and the git subcommands it ran. */
async function validate(sandbox: Sandbox, path: string) {
  const trace = join(sandbox.root, `git-trace-${process.hrtime.bigint()}.txt`);
  const result = await sandbox.cli(["validate", path], { env: { LOOPWRIGHT_GIT_TRACE: trace } });
  const commands = existsSync(trace)
    ? readFileSync(trace, "utf8")
        .split("\n")
        .filter(Boolean)
        .map((line) => line.split(" ").slice(1).join(" "))
    : [];
  return { ...result, commands };
}

describe("validate's questions to git", () => {
  let sandbox: Sandbox;
  let head: string;
  before(async () => {
    sandbox = await createSandbox();
    head = await sandbox.git("rev-parse", "HEAD");
  });
  after(() => sandbox.cleanup());

  test("a spec on a main worktree: the repository and the base from one git process", async () => {
    const result = await validate(sandbox, await sandbox.spec(spec(), join(sandbox.root, "usual.yaml")));
    assert.equal(result.code, 0, result.stderr);
    assert.match(result.stdout, new RegExp(`branch loop/checked from HEAD \\(${head.slice(0, 12)}\\)`));
    assert.equal(result.commands.length, 1, result.commands.join("\n"));
  });

  test("validated again, a HEAD git confirmed is read from files: no git process, the same answer", async () => {
    const path = await sandbox.spec(spec(), join(sandbox.root, "again.yaml"));
    const first = await validate(sandbox, path);
    assert.equal(first.code, 0, first.stderr);
    const again = await validate(sandbox, path);
    assert.equal(again.code, 0, again.stderr);
    assert.equal(again.stdout, first.stdout);
    assert.deepEqual(again.commands, []);
    // A new commit is git's to confirm, once.
    await sandbox.git("commit", "-q", "--allow-empty", "-m", "moved");
    const moved = await sandbox.git("rev-parse", "HEAD");
    for (const expected of [1, 0]) {
      const result = await validate(sandbox, path);
      assert.equal(result.code, 0, result.stderr);
      assert.match(result.stdout, new RegExp(`from HEAD \\(${moved.slice(0, 12)}\\)`));
      assert.equal(result.commands.length, expected, result.commands.join("\n"));
    }
    await sandbox.git("reset", "-q", "--hard", head);
  });

  test("a base naming a branch resolves to its commit", async () => {
    await sandbox.git("branch", "stable");
    const result = await validate(
      sandbox,
      await sandbox.spec(spec("base: stable\n"), join(sandbox.root, "branch.yaml")),
    );
    assert.equal(result.code, 0, result.stderr);
    assert.match(result.stdout, new RegExp(`from stable \\(${head.slice(0, 12)}\\)`));
  });

  test("an unknown base is reported as before", async () => {
    const result = await validate(
      sandbox,
      await sandbox.spec(spec("base: nope\n"), join(sandbox.root, "unknown.yaml")),
    );
    assert.equal(result.code, 2);
    assert.match(result.stderr, new RegExp(`unknown.yaml: unknown base 'nope' in ${sandbox.repo}\\n`));
  });

  test("a linked worktree is bound to its repository, and HEAD is the main worktree's", async () => {
    const linked = join(sandbox.root, "linked");
    await sandbox.git("worktree", "add", "-q", "-b", "side", linked);
    await sandbox.git("-C", linked, "commit", "-q", "--allow-empty", "-m", "side");
    const result = await validate(
      sandbox,
      await sandbox.spec(spec("", "./linked"), join(sandbox.root, "linked.yaml")),
    );
    assert.equal(result.code, 0, result.stderr);
    assert.match(result.stdout, new RegExp(`loop checked in ${sandbox.repo}\\n`));
    assert.match(result.stdout, new RegExp(`from HEAD \\(${head.slice(0, 12)}\\)`));
  });

  test("a repository without commits says so", async () => {
    const empty = await createSandbox();
    try {
      await empty.git("checkout", "-q", "--orphan", "unborn");
      await empty.git("rm", "-rq", "--cached", ".");
      await empty.git("update-ref", "-d", "refs/heads/main");
      const result = await validate(empty, await empty.spec(spec(), join(empty.root, "empty.yaml")));
      assert.equal(result.code, 2);
      assert.match(result.stderr, /unknown base 'HEAD' in .*: the repository has no commits yet/);
    } finally {
      await empty.cleanup();
    }
  });
});
