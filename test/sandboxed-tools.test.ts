/**
 * The built-in agent's command tools in the operating-system sandbox, on a real git repository and its
 * worktree as a loop lays them out: the read-only `run` tool cannot make git run a program the
 * repository's configuration names, and what runs writes nothing; the maker's `bash` writes its
 * worktree but not the user's checkout, its git config or $HOME.
 */
import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import { existsSync } from "node:fs";
import { mkdir, mkdtemp, realpath, rm, writeFile } from "node:fs/promises";
import { homedir, tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { promisify } from "node:util";
import type { Workspace } from "../src/agent/agent-types.ts";
import { runToolCall } from "../src/agent/tools/run-tool-call.ts";
import { fullTools, readOnlyTools } from "../src/agent/tools/tool-sets.ts";
import { sandboxAvailability } from "../src/sandbox/sandbox-availability.ts";

const execFileAsync = promisify(execFile);
const noSandbox = sandboxAvailability().available ? false : "no bubblewrap sandbox on this machine";
const limits = { maxChars: 4000, maxLines: 100 };
let root: string;
let checkout: string;
let workspace: Workspace;
let calls = 0;
const homeProbe = join(homedir(), `.loopwright-tools-probe-${process.pid}`);

const git = (cwd: string, ...args: string[]) =>
  execFileAsync("git", ["-c", "user.name=t", "-c", "user.email=t@example.com", ...args], { cwd });

before(async () => {
  root = await realpath(await mkdtemp(join(tmpdir(), "loopwright-sandboxed-tools-")));
  checkout = join(root, "checkout");
  await mkdir(checkout);
  await git(checkout, "init", "-q", "-b", "main");
  await writeFile(join(checkout, "notes.md"), "one\n");
  await git(checkout, "add", "notes.md");
  await git(checkout, "commit", "-qm", "base");
  const worktree = join(root, "home", "loops", "l", "worktrees", "maker");
  await git(checkout, "worktree", "add", "-q", "-b", "loop/l", worktree);
  await writeFile(join(worktree, "notes.md"), "two\n");
  const scratch = join(root, "home", "loops", "l", "iterations", "1", "verifier-agent");
  await mkdir(scratch, { recursive: true });
  workspace = { root: worktree, readable: [], scratch };
});
after(async () => {
  await rm(homeProbe, { force: true });
  await rm(root, { recursive: true, force: true });
});

function call(name: string, input: unknown, readOnly: boolean) {
  calls += 1;
  return runToolCall(
    { id: `call-${calls}`, name, input },
    readOnly ? readOnlyTools : fullTools,
    {
      workspace,
      signal: new AbortController().signal,
      runId: "sandboxed-tools-test",
      stepId: `tool-${calls}`,
      env: { LOOPWRIGHT_HOME: join(root, "home") },
    },
    limits,
  );
}

describe("run (read-only) in the sandbox", { skip: noSandbox }, () => {
  it("git diff, log and show never run the external diff or textconv program the repository configures", async () => {
    const marker = join(root, "external-diff-ran");
    const program = join(root, "external-diff.sh");
    await writeFile(program, `#!/bin/sh\ntouch ${marker}\n`, { mode: 0o755 });
    await git(checkout, "config", "diff.external", program);
    try {
      for (const command of ["git diff", "git log -p", "git show HEAD"]) {
        const result = await call("run", { command }, true);
        assert.equal(result.ok, true, `${command}: ${result.text}`);
        assert.equal(existsSync(marker), false, `${command} ran the external diff`);
      }
      assert.match((await call("run", { command: "git diff" }, true)).text, /\+two/);
    } finally {
      await git(checkout, "config", "--unset", "diff.external");
    }
  });

  it("git still works in the read-only sandbox (status of a linked worktree)", async () => {
    const result = await call("run", { command: "git status --short" }, true);
    assert.equal(result.ok, true, result.text);
    assert.match(result.text, /M notes.md/);
  });
});

describe("bash (maker) in the sandbox", { skip: noSandbox }, () => {
  it("writes the worktree and temp files, not the user's checkout, its git config or hooks, nor $HOME", async () => {
    const attempts = {
      worktree: "echo three > notes.md",
      temp: 'echo x > "$TMPDIR/scratch"',
      checkout: `echo planted > ${checkout}/planted.txt`,
      gitConfig: `git config --file ${checkout}/.git/config core.fsmonitor 'touch /tmp/pwned'`,
      gitHooks: `echo 'exit 0' > ${checkout}/.git/hooks/pre-commit`,
      home: `echo x > ${homeProbe}`,
    };
    const outcomes: Record<string, boolean> = {};
    for (const [name, command] of Object.entries(attempts))
      outcomes[name] = (await call("bash", { command }, false)).ok;
    assert.deepEqual(outcomes, {
      worktree: true,
      temp: true,
      checkout: false,
      gitConfig: false,
      gitHooks: false,
      home: false,
    });
    assert.equal(existsSync(join(checkout, "planted.txt")), false);
    assert.equal(existsSync(homeProbe), false);
  });

  it("cannot plant a hook even when the repository has no hooks folder", async () => {
    await rm(join(checkout, ".git", "hooks"), { recursive: true, force: true });
    const result = await call(
      "bash",
      { command: `mkdir -p ${checkout}/.git/hooks && echo 'exit 0' > ${checkout}/.git/hooks/pre-commit` },
      false,
    );
    assert.equal(result.ok, false, result.text);
    assert.equal(existsSync(join(checkout, ".git", "hooks", "pre-commit")), false);
  });

  it("can still commit in its worktree (objects and refs of the shared repository are writable)", async () => {
    const result = await call(
      "bash",
      {
        command:
          "git -c user.name=m -c user.email=m@example.com commit -qam 'maker commit' && git log -1 --format=%s",
      },
      false,
    );
    assert.equal(result.ok, true, result.text);
    assert.match(result.text, /maker commit/);
  });
});
