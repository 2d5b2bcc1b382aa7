/**
 * Loop branch names: checked as git checks them, plus the names git accepts but misreads (a leading
 * `-` taken as an option, a `refs/` prefix doubled). A bad name is a spec error in `validate` and `run`
 * (exit 2) before anything exists: no loop record, no branch, no worktree, the user's branch untouched.
 */
import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import { readdir } from "node:fs/promises";
import { join } from "node:path";
import { after, before, test } from "node:test";
import { promisify } from "node:util";
import { branchNameProblem } from "../src/core/branch-name.ts";
import { createSandbox, type Sandbox } from "./support/loop-sandbox.ts";

const execFileAsync = promisify(execFile);

let sandbox: Sandbox;
before(async () => {
  sandbox = await createSandbox({ "README.md": "# repo\n", "answer.txt": "0\n" });
});
after(() => sandbox.cleanup());

/** Names git itself refuses with `check-ref-format --branch`. */
const refusedByGit = [
  "",
  "-m",
  "-f",
  "--force",
  "HEAD",
  "a..b",
  "a b",
  "tab\there",
  "new\nline",
  "x~1",
  "x^",
  "x:y",
  "what?",
  "star*",
  "open[",
  "back\\slash",
  "trailing/",
  "/leading",
  "double//slash",
  "ends.",
  ".hidden",
  "dir/.hidden",
  "x.lock",
  "dir/x.lock/y",
  "at@{1}",
  "del\u007f",
];
/** Names git accepts. */
const acceptedByGit = ["main", "loop/fix-bug", "feature/x.y", "a-b_c", "ünïcode", "x@y", "a.b/c-d", "v1.2.3"];
/** Names git accepts but loopwright refuses: they do not mean what they look like (`@` is HEAD). */
const surprising = ["refs/heads/main", "refs/tags/v1", "refs/x", "@"];

async function gitAccepts(name: string): Promise<boolean> {
  return execFileAsync("git", ["check-ref-format", "--branch", name]).then(
    () => true,
    () => false,
  );
}

test("the branch name check agrees with git's own check-ref-format --branch", async () => {
  for (const name of refusedByGit) {
    assert.equal(await gitAccepts(name), false, `git refuses ${JSON.stringify(name)}`);
    assert.ok(branchNameProblem(name), `refused: ${JSON.stringify(name)}`);
  }
  for (const name of acceptedByGit) {
    assert.equal(await gitAccepts(name), true, `git accepts ${JSON.stringify(name)}`);
    assert.equal(branchNameProblem(name), undefined, `accepted: ${JSON.stringify(name)}`);
  }
  for (const name of surprising) {
    assert.equal(await gitAccepts(name), true, `git accepts ${JSON.stringify(name)}`);
    assert.ok(branchNameProblem(name), `refused: ${JSON.stringify(name)}`);
  }
});

const spec = (name: string, branch: string) => `name: ${name}
goal: answer.txt says 42.
repo: ./repo
branch: ${JSON.stringify(branch)}
maker:
  engine: scripted
  turns:
    - { say: "wrote the answer", write: { answer.txt: "42\\n" } }
gates:
  - { id: answer, kind: tests-pass, run: "grep -qx 42 answer.txt", timeout: 20s }
budget: { maxIterations: 2 }
`;

for (const [index, branch] of ["-m", "-f", "refs/heads/main", "a..b", "x.lock"].entries()) {
  test(`branch ${JSON.stringify(branch)} is refused by validate and run with exit 2; nothing is created`, async () => {
    const before = await sandbox.git("for-each-ref", "--format=%(refname) %(objectname)");
    const head = await sandbox.git("symbolic-ref", "HEAD");
    const file = join(sandbox.root, `branch-${index}.yaml`);
    await sandbox.spec(spec(`bad-branch-${index}`, branch), file);
    for (const command of ["validate", "run"]) {
      const result = await sandbox.cli([command, `branch-${index}.yaml`], { cwd: sandbox.root });
      assert.equal(result.code, 2, `${command}: ${result.stderr}${result.stdout}`);
      assert.match(
        result.stderr,
        new RegExp(`^branch-${index}\\.yaml:4: branch: invalid branch name: .+\\n$`),
      );
      assert.doesNotMatch(result.stderr, /internal error|\n\s+at /);
    }
    assert.equal(await sandbox.git("for-each-ref", "--format=%(refname) %(objectname)"), before);
    assert.equal(await sandbox.git("symbolic-ref", "HEAD"), head, "the user's current branch is not renamed");
    const list = await sandbox.cli(["ls", "--all", "--json"]);
    assert.deepEqual(JSON.parse(list.stdout), [], "no loop record");
    const loops = await readdir(join(sandbox.home, "loops")).catch(() => []);
    assert.deepEqual(loops, [], "no loop folder or worktree");
  });
}
