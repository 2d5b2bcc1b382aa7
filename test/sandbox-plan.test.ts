/**
 * The sandbox plans (pure but for reading the worktree's `.git` file): what each role may write, see
 * and not see, and the bubblewrap command line that enforces a plan, mount by mount, in order.
 */
import assert from "node:assert/strict";
import { mkdir, mkdtemp, realpath, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { test } from "node:test";
import { bubblewrapArguments } from "../src/sandbox/sandbox-plan.ts";
import { turnSandboxPlan } from "../src/sandbox/turn-sandbox.ts";

test("bubblewrap arguments: read-only root, then each mount in order, a PID namespace that dies with its parent", () => {
  const argv = bubblewrapArguments(
    {
      mounts: [
        { access: "write", path: "/tmp" },
        { access: "hide", path: "/tmp/home" },
        { access: "read", path: "/tmp/home/worktree" },
      ],
    },
    "/tmp/home/worktree",
    ["sh", "-c", "echo hi"],
  );
  assert.deepEqual(argv, [
    ...["--ro-bind", "/", "/", "--dev-bind", "/dev", "/dev", "--proc", "/proc"],
    ...[
      "--bind",
      "/tmp",
      "/tmp",
      "--tmpfs",
      "/tmp/home",
      "--ro-bind",
      "/tmp/home/worktree",
      "/tmp/home/worktree",
    ],
    ...["--unshare-pid", "--die-with-parent", "--chdir", "/tmp/home/worktree", "--", "sh", "-c", "echo hi"],
  ]);
});

test("a read-only turn hides loopwright's home and its turn folder, then shows its worktree and evidence read-only", () => {
  const plan = turnSandboxPlan({
    readOnly: true,
    cwd: "/state/loops/l/worktrees/verify-1",
    turnDirectory: "/state/loops/l/iterations/1",
    evidence: ["/state/loops/l/iterations/1/gates-grade/tests.log"],
    programState: ["/home/u/.claude"],
    env: { LOOPWRIGHT_HOME: "/state" },
  });
  const accesses = plan.mounts.map((mount) => `${mount.access} ${mount.path}`);
  assert.ok(accesses.indexOf("hide /state") < accesses.indexOf("read /state/loops/l/worktrees/verify-1"));
  assert.ok(accesses.includes("hide /state/loops/l/iterations/1"));
  assert.ok(accesses.includes("read /state/loops/l/iterations/1/gates-grade/tests.log"));
  assert.equal(accesses.at(-1), "write /home/u/.claude");
  assert.ok(!accesses.includes("write /state/loops/l/worktrees/verify-1"), "the worktree is never writable");
});

test("a maker writes its worktree after loopwright's home is made read-only again", () => {
  const plan = turnSandboxPlan({
    readOnly: false,
    cwd: "/state/loops/l/worktrees/maker",
    turnDirectory: "/state/loops/l/iterations/1",
    env: { LOOPWRIGHT_HOME: "/state" },
  });
  const accesses = plan.mounts.map((mount) => `${mount.access} ${mount.path}`);
  assert.ok(accesses.indexOf("read /state") < accesses.indexOf("write /state/loops/l/worktrees/maker"));
  assert.ok(!accesses.some((access) => access.startsWith("hide")), "a maker hides nothing");
});

test("a maker in a plain clone (its .git inside the worktree) still cannot write .git/config or hooks", async () => {
  const root = await realpath(await mkdtemp(join(tmpdir(), "loopwright-plan-")));
  try {
    await mkdir(join(root, "clone", ".git", "hooks"), { recursive: true });
    const plan = turnSandboxPlan({
      readOnly: false,
      cwd: join(root, "clone"),
      turnDirectory: join(root, "turn"),
    });
    const accesses = plan.mounts.map((mount) => `${mount.access} ${mount.path}`);
    const worktree = accesses.indexOf(`write ${join(root, "clone")}`);
    assert.ok(worktree >= 0);
    assert.ok(accesses.indexOf(`read ${join(root, "clone", ".git", "config")}`) > worktree);
    assert.ok(accesses.indexOf(`read ${join(root, "clone", ".git", "hooks")}`) > worktree);
  } finally {
    await rm(root, { recursive: true, force: true });
  }
});
