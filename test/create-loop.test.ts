import assert from "node:assert/strict";
import { rm, symlink } from "node:fs/promises";
import { join } from "node:path";
import { test } from "node:test";
import { loadSpecFile } from "../src/core/spec-file.ts";
import { UsageError } from "../src/errors.ts";
import { createLoop } from "../src/loop/create-loop.ts";
import { openStore } from "../src/store/open-store.ts";
import { createSandbox, type Sandbox } from "./support/loop-sandbox.ts";

/** Creates the loop `name` (base `base`, branch `branch` when given) and returns its `loop_created` data. */
async function created(
  sandbox: Sandbox,
  name: string,
  base: string,
  branch?: string,
): Promise<Record<string, unknown>> {
  const spec = await loadSpecFile(
    await sandbox.spec(
      `name: ${name}
goal: Create the loop.
repo: ./repo
base: ${base}
${branch ? `branch: ${branch}\n` : ""}maker: { engine: command, run: "true" }
verifier: { engine: command, run: "cat" }
`,
      `${sandbox.root}/${name}.yaml`,
    ),
  );
  const store = await openStore(sandbox.home);
  try {
    const baseSha = await sandbox.git("rev-parse", `${base}^{commit}`);
    const loop = await createLoop(store, spec, sandbox.repo, baseSha);
    const [event] = await store.readEvents(loop.id);
    assert.equal(event.type, "loop_created");
    return event.data as Record<string, unknown>;
  } finally {
    await store.close();
  }
}

test("the loop's start branch: the base when it names a local branch, else the branch checked out, none when detached", async () => {
  const sandbox = await createSandbox();
  try {
    await sandbox.git("branch", "release");
    await sandbox.git("tag", "v1");
    assert.equal((await created(sandbox, "on-head", "HEAD")).startBranch, "main");
    assert.equal((await created(sandbox, "on-branch", "release")).startBranch, "release");
    // A tag or a SHA is no branch: the loop starts from the branch checked out.
    assert.equal((await created(sandbox, "on-tag", "v1")).startBranch, "main");
    const sha = await sandbox.git("rev-parse", "HEAD");
    assert.equal((await created(sandbox, "on-sha", sha)).startBranch, "main");
    // A packed branch counts as one.
    await sandbox.git("branch", "packed");
    await sandbox.git("pack-refs", "--all");
    assert.equal((await created(sandbox, "on-packed", "packed")).startBranch, "packed");
    await sandbox.git("checkout", "-q", "--detach");
    assert.equal((await created(sandbox, "detached", "HEAD")).startBranch, undefined);
    assert.equal((await created(sandbox, "detached-on-branch", "release")).startBranch, "release");
    // HEAD on an orphan branch (no commit yet), the base elsewhere: that branch, as git names it.
    await sandbox.git("checkout", "-q", "--orphan", "fresh");
    assert.equal((await created(sandbox, "orphan", "release")).startBranch, "release");
    assert.equal((await created(sandbox, "orphan-sha", sha)).startBranch, "fresh");
  } finally {
    await sandbox.cleanup();
  }
});

test("a loop whose branch exists (loose or packed) is refused; a branch below its name or above it is not its branch", async () => {
  const sandbox = await createSandbox();
  try {
    await sandbox.git("branch", "loop/taken");
    await assert.rejects(created(sandbox, "taken", "HEAD"), (error: unknown) => {
      assert.ok(error instanceof UsageError);
      assert.match(error.message, /branch loop\/taken already exists/);
      return true;
    });
    await sandbox.git("branch", "loop/packed");
    await sandbox.git("pack-refs", "--all");
    await assert.rejects(created(sandbox, "packed", "HEAD"), /branch loop\/packed already exists/);
    // `work/deeper/x` exists: `work/deeper` cannot be made beside it (git's rule), but it is not taken.
    await sandbox.git("branch", "work/deeper/x");
    const below = await created(sandbox, "below", "HEAD", "work/deep");
    assert.equal(below.branch, "work/deep");
    await sandbox.git("branch", "feature");
    const above = await created(sandbox, "above", "HEAD", "feature/one");
    assert.equal(above.branch, "feature/one");
  } finally {
    await sandbox.cleanup();
  }
});

test("where git's files cannot tell (a HEAD that is a symbolic link), git answers the same", async () => {
  const sandbox = await createSandbox();
  try {
    await sandbox.git("branch", "release");
    await sandbox.git("branch", "loop/taken");
    await sandbox.git("pack-refs", "--all");
    const head = join(sandbox.repo, ".git", "HEAD");
    await rm(head);
    await symlink("refs/heads/main", head);
    assert.equal((await created(sandbox, "on-head", "HEAD")).startBranch, "main");
    assert.equal((await created(sandbox, "on-branch", "release")).startBranch, "release");
    await assert.rejects(created(sandbox, "taken", "HEAD"), /branch loop\/taken already exists/);
  } finally {
    await sandbox.cleanup();
  }
});

/** Runs `body` in a new sandbox, removed afterwards. */
async function withSandbox(body: (sandbox: Sandbox) => Promise<void>): Promise<void> {
  const sandbox = await createSandbox();
  try {
    await body(sandbox);
  } finally {
    await sandbox.cleanup?.();
  }
}

// Names beyond ASCII: git's files are read as bytes, so these are git's to answer.
test("a packed branch named beyond ASCII is taken: the loop is refused", () =>
  withSandbox(async (sandbox) => {
    await sandbox.git("branch", "fé");
    await sandbox.git("pack-refs", "--all");
    await assert.rejects(created(sandbox, "packed-utf8", "HEAD", "fé"), UsageError);
  }));

test("HEAD on a branch named beyond ASCII: the start branch is that name", () =>
  withSandbox(async (sandbox) => {
    await sandbox.git("checkout", "-q", "-b", "fé");
    assert.equal((await created(sandbox, "head-utf8", "HEAD", "loop-x")).startBranch, "fé");
  }));
