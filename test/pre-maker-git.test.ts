/**
 * The git work before a fresh loop's first maker turn: each checkout is written once. The gates'
 * checkout made by prepare (no setup) is graded on the base commit as it is, not checked out and
 * cleaned again, and the base gates still see exactly the base commit's files; the maker's is taken by
 * its first turn as prepare made it, not snapshotted, cleaned or written again, and the maker still finds
 * exactly the base commit's files on the loop's branch. Counted with LOOPWRIGHT_GIT_TRACE on a run killed
 * right after `maker_started`.
 */
import assert from "node:assert/strict";
import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { after, before, test } from "node:test";
import { createSandbox, type Sandbox } from "./support/loop-sandbox.ts";
import { readTimeline } from "./support/loop-timeline.ts";

let sandbox: Sandbox;
before(async () => {
  sandbox = await createSandbox({ "README.md": "# repo\n", "src/a.txt": "a\n" });
});
after(() => sandbox.cleanup());

test("a fresh loop checks out each worktree once before the maker, and the base gates see the base files", async () => {
  const spec = await sandbox.spec(`name: once
goal: Never reached.
repo: ./repo
maker:
  engine: scripted
  turns:
    - write: { work.txt: "x\\n" }
gates:
  - { id: exact, kind: tests-pass, run: 'test -z "$(git status --porcelain --untracked-files=all)" && test -f src/a.txt && test "$(git rev-parse HEAD)" = "$BASE"' }
budget: { maxIterations: 1 }
`);
  const base = await sandbox.git("rev-parse", "HEAD");
  const trace = join(sandbox.root, "git-trace");
  // Events of a fresh run: loop_created, run_started, engines_resolved, loop_prepared, gate_started,
  // gate_ended, iteration_started, maker_started (the 8th, checked below).
  const run = await sandbox.cli(["run", spec], {
    env: { LOOPWRIGHT_GIT_TRACE: trace, LOOPWRIGHT_TEST_CRASH_AFTER_EVENT: "8", BASE: base },
  });
  assert.equal(run.code, null, run.stderr);
  const events = readTimeline(sandbox);
  assert.deepEqual(
    events.map((event) => event.type),
    [
      "loop_created",
      "run_started",
      "engines_resolved",
      "loop_prepared",
      "gate_started",
      "gate_ended",
      "iteration_started",
      "maker_started",
    ],
  );
  const baseGate = JSON.parse(events[5].data) as { result: { passed: boolean; tail: string } };
  assert.equal(baseGate.result.passed, true, baseGate.result.tail);
  const commands = (await readFile(trace, "utf8"))
    .trim()
    .split("\n")
    .map((line) => line.split(" ")[1]);
  const count = (name: string) => commands.filter((command) => command === name).length;
  // One read-tree per checkout (maker, gates); no snapshot (add, write-tree) and no clean before the turn.
  assert.equal(count("read-tree"), 2, commands.join(" "));
  assert.equal(count("clean"), 0, commands.join(" "));
  assert.equal(count("add"), 0, commands.join(" "));
  assert.equal(count("write-tree"), 0, commands.join(" "));
  // Whether the branch is taken, which branch the loop starts from, whether a checkout holds the branch:
  // read from git's files.
  for (const question of ["for-each-ref", "show-ref", "symbolic-ref", "worktree"])
    assert.equal(count(question), 0, commands.join(" "));
  // One rev-parse (preflight's): it also finds where the loop's private git takes its objects from and
  // the exclude file it copies, which are not asked again.
  assert.equal(count("rev-parse"), 1, commands.join(" "));
});

test("the maker's first turn finds exactly the base commit's files, on the loop's branch at the base", async () => {
  await sandbox.write({ "ignored.log": "the user's\n", ".gitignore": "*.log\n" });
  const spec = await sandbox.spec(
    `name: seen
goal: Never reached.
repo: ./repo
maker:
  engine: command
  run: 'seen=$(git status --porcelain --untracked-files=all --ignored; git symbolic-ref HEAD; git rev-parse HEAD; ls -A); printf "%s\\n" "$seen" > seen.txt'
verifier: { engine: command, run: "cat" }
gates: [{ id: never, kind: tests-pass, run: "false" }]
budget: { maxIterations: 1 }
`,
    join(sandbox.root, "seen.yaml"),
  );
  const base = await sandbox.git("rev-parse", "HEAD");
  const run = await sandbox.cli(["run", spec]);
  assert.equal(run.code, 3, run.stderr + run.stdout);
  const seen = await sandbox.git("show", "loop/seen:seen.txt");
  assert.equal(seen, ["refs/heads/loop/seen", base, ".git", "README.md", "src"].join("\n"));
});

test("with setup, the maker's first turn snapshots its checkout: a file setup left is kept under a ref", async () => {
  const spec = await sandbox.spec(
    `name: setup-left
goal: Never reached.
repo: ./repo
setup: ["echo made > setup-made.txt"]
maker: { engine: command, run: "ls -A > listing.txt" }
verifier: { engine: command, run: "cat" }
gates: [{ id: never, kind: tests-pass, run: "false" }]
budget: { maxIterations: 1 }
`,
    join(sandbox.root, "setup-left.yaml"),
  );
  const run = await sandbox.cli(["run", spec]);
  assert.equal(run.code, 3, run.stderr + run.stdout);
  assert.equal(
    await sandbox.git("show", "loop/setup-left:listing.txt"),
    [".git", "README.md", "listing.txt", "src"].join("\n"),
  );
  const kept = await sandbox.git("for-each-ref", "--format=%(refname)", "refs/loopwright/");
  assert.match(kept, /interrupted-1-0/);
});

test("a loop whose branch was made elsewhere before its first prepare gets the maker's checkout at that branch", async () => {
  const spec = await sandbox.spec(
    `name: raced
goal: Never reached.
repo: ./repo
maker: { engine: scripted, turns: [{ write: { work.txt: "x\\n" } }] }
gates: [{ id: never, kind: tests-pass, run: "false" }]
budget: { maxIterations: 1 }
`,
    join(sandbox.root, "raced.yaml"),
  );
  // The loop is created (event 1), then its controller dies before preparing anything.
  const created = await sandbox.cli(["run", spec], { env: { LOOPWRIGHT_TEST_CRASH_AFTER_EVENT: "1" } });
  assert.equal(created.code, null, created.stderr);
  // Meanwhile someone makes the loop's branch, at a commit that is not the base.
  const base = await sandbox.git("rev-parse", "HEAD");
  const moved = await sandbox.commit({ "moved.txt": "moved\n" }, "moved on");
  await sandbox.git("branch", "loop/raced", moved);
  await sandbox.git("reset", "-q", "--hard", base);
  // The resume prepares (resume_requested, run_started, engines_resolved, loop_prepared: events 2 to 5)
  // and stops there.
  const resumed = await sandbox.cli(["resume", "raced"], { env: { LOOPWRIGHT_TEST_CRASH_AFTER_EVENT: "5" } });
  assert.equal(resumed.code, null, resumed.stderr);
  const prepared = readTimeline(sandbox).findLast(
    (event) => event.type === "loop_prepared" && event.data.includes("/raced-"),
  );
  assert.ok(prepared, `the loop was not prepared: ${resumed.stdout}${resumed.stderr}`);
  const { makerWorktree } = JSON.parse(prepared.data) as { makerWorktree: string };
  assert.equal(await readFile(join(makerWorktree, "moved.txt"), "utf8"), "moved\n");
  assert.equal(await sandbox.git("-C", makerWorktree, "rev-parse", "HEAD"), moved);
});
