/**
 * The loop owns its branch (end to end through the CLI, with a `command` maker): a maker that commits
 * its fix on another branch, or on a detached HEAD, still has its fix graded on the loop's branch, and
 * the loop's branch (and the pushed branch) ends on the verified commit. What the maker did with
 * branches is recorded.
 */
import assert from "node:assert/strict";
import { chmod, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { after, before, test } from "node:test";
import { createSandbox, type Sandbox } from "./support/loop-sandbox.ts";
import { eventsIn } from "./support/loop-timeline.ts";

let sandbox: Sandbox;
let remote: string;
before(async () => {
  sandbox = await createSandbox({ "README.md": "# repo\n", "answer.txt": "0\n" });
  remote = join(sandbox.root, "remote.git");
  await sandbox.git("init", "-q", "--bare", remote);
  await sandbox.git("remote", "add", "origin", remote);
});
after(() => sandbox.cleanup());

const commit = `git -c user.name=Maker -c user.email=maker@example.com commit -q -am fix`;

const variants: Record<string, { script: string; recorded: RegExp }> = {
  "git checkout -b side, then commits there": {
    script: `git checkout -q -b side\necho 42 > answer.txt\n${commit}`,
    recorded: /^switched to branch side$/,
  },
  "git switch -c agent/fix, then commits there": {
    script: `git switch -q -c agent/fix\necho 42 > answer.txt\n${commit}`,
    recorded: /^switched to branch agent\/fix$/,
  },
  "detaches HEAD, then commits": {
    script: `git checkout -q --detach\necho 42 > answer.txt\n${commit}`,
    recorded: /^detached HEAD at [0-9a-f]{40}$/,
  },
  "commits on a new branch, then deletes the loop's branch in its checkout": {
    script: `git checkout -q -b other\necho 42 > answer.txt\n${commit}\ngit branch -q -D "$(git for-each-ref --format='%(refname:short)' refs/heads/loop/)"`,
    recorded: /^switched to branch other$/,
  },
};

let counter = 0;
for (const [name, variant] of Object.entries(variants)) {
  test(`a maker that ${name}: the fix is graded and verified on the loop's branch`, async () => {
    counter += 1;
    const maker = join(sandbox.root, `maker-${counter}.sh`);
    await writeFile(maker, `#!/bin/sh\nset -e\n${variant.script}\n`);
    await chmod(maker, 0o755);
    const spec = await sandbox.spec(
      `name: wanderer-${counter}
goal: answer.txt says 42.
repo: ./repo
maker: { engine: command, run: "${maker}" }
verifier: { engine: scripted, turns: [{ verdict: auto }] }
gates:
  - { id: answer, kind: tests-pass, run: "grep -qx 42 answer.txt" }
budget: { maxIterations: 1 }
`,
      join(sandbox.root, `wanderer-${counter}.yaml`),
    );
    const base = await sandbox.git("rev-parse", "HEAD");
    const result = await sandbox.cli(["run", spec, "--json"]);
    assert.equal(result.code, 0, `verified: ${result.stderr}`);
    const events = eventsIn(result.stdout);
    const committed = events.find((event) => event.type === "commit_created");
    const finished = events.find((event) => event.type === "loop_finished");
    const branch = `loop/wanderer-${counter}`;
    const tip = await sandbox.git("rev-parse", branch);
    assert.notEqual(tip, base, "the loop's branch moved off the base");
    assert.equal(finished?.data.sha, tip, "the loop's branch is on the verified commit");
    assert.equal(committed?.data.sha, tip, "the graded commit is the branch's");
    assert.equal(await sandbox.git("show", `${branch}:answer.txt`), "42");
    assert.equal(await sandbox.git("rev-parse", `${branch}~1`), base, "one commit on the base");
    assert.equal(
      await sandbox.git("--git-dir", remote, "rev-parse", branch),
      tip,
      "the verified commit is pushed",
    );
    assert.equal(await sandbox.git("rev-parse", "HEAD"), base, "the user's checkout did not move");
    assert.match(String(committed?.data.makerGit), variant.recorded, "what the maker did is recorded");
  });
}

test("a loop whose branch the user has checked out does not move it under them: resume stops with the reason", async () => {
  const spec = await sandbox.spec(
    `name: occupied
goal: count.txt holds 2.
repo: ./repo
maker:
  engine: scripted
  turns:
    - write: { count.txt: "1\\n" }
    - write: { count.txt: "2\\n" }
gates: [{ id: count, kind: tests-pass, run: "grep -qx 2 count.txt" }]
budget: { maxIterations: 1 }
`,
    join(sandbox.root, "occupied.yaml"),
  );
  const first = await sandbox.cli(["run", spec]);
  assert.equal(first.code, 3, first.stdout + first.stderr);
  const elsewhere = join(sandbox.root, "user-worktree");
  await sandbox.git("worktree", "add", "-q", elsewhere, "loop/occupied");
  const tip = await sandbox.git("rev-parse", "loop/occupied");
  assert.equal((await sandbox.cli(["steer", "occupied", "--budget", "maxIterations=2"])).code, 0);
  const resumed = await sandbox.cli(["resume", "occupied"]);
  assert.notEqual(resumed.code, 0);
  assert.match(resumed.stdout + resumed.stderr, /loop\/occupied is checked out in .*user-worktree/);
  assert.equal(
    await sandbox.git("rev-parse", "loop/occupied"),
    tip,
    "the user's checked-out branch did not move",
  );
  await sandbox.git("worktree", "remove", elsewhere);
  const again = await sandbox.cli(["resume", "occupied"]);
  assert.equal(again.code, 0, again.stdout + again.stderr);
  assert.equal(await sandbox.git("show", "loop/occupied:count.txt"), "2");
});

test("a loop whose branch is an unborn branch of the user's worktree creates nothing before refusing", async () => {
  const spec = await sandbox.spec(
    `name: orphaned
goal: count.txt holds 1.
repo: ./repo
maker: { engine: scripted, turns: [{ write: { count.txt: "1\\n" } }] }
gates: [{ id: count, kind: tests-pass, run: "grep -qx 1 count.txt" }]
`,
    join(sandbox.root, "orphaned.yaml"),
  );
  // The user's worktree holds loop/orphaned as an orphan branch: no commit yet, so no ref.
  const elsewhere = join(sandbox.root, "orphan-worktree");
  await sandbox.git("worktree", "add", "-q", "--detach", elsewhere);
  await sandbox.git("-C", elsewhere, "checkout", "-q", "--orphan", "loop/orphaned");
  try {
    const run = await sandbox.cli(["run", spec]);
    assert.notEqual(run.code, 0);
    assert.match(run.stdout + run.stderr, /loop\/orphaned is checked out in .*orphan-worktree/);
    const ref = await sandbox.git("rev-parse", "--verify", "--quiet", "refs/heads/loop/orphaned").then(
      (sha) => sha,
      () => "",
    );
    assert.equal(ref, "", "the branch was not created under the user's orphan worktree");
  } finally {
    await sandbox.git("worktree", "remove", "--force", elsewhere);
  }
});
