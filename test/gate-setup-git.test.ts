/**
 * A loop with setup asks git what its gates' checkout held only when this controller does not know it:
 * the recheck of a red gate (same commit, the index as the grade left it) runs no `write-tree` and no
 * diff for it, and setup still runs again when a lockfile changed. Counted with LOOPWRIGHT_GIT_TRACE.
 */
import assert from "node:assert/strict";
import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { after, before, test } from "node:test";
import { createSandbox, type Sandbox } from "./support/loop-sandbox.ts";
import { readTimeline } from "./support/loop-timeline.ts";

let sandbox: Sandbox;
before(async () => {
  sandbox = await createSandbox({ "README.md": "# repo\n", "package-lock.json": "{}\n" });
});
after(() => sandbox.cleanup());

test("the recheck's setup check runs no git, and a changed lockfile still runs setup again", async () => {
  const spec = await sandbox.spec(`name: setup-known
goal: Never reached.
repo: ./repo
maker:
  engine: scripted
  turns:
    - write: { package-lock.json: "{ \\"changed\\": {{iteration}} }\\n" }
setup:
  - echo setup ran >> "$SETUP_LOG"
gates:
  - { id: red, kind: tests-pass, run: "test -f never" }
budget: { maxIterations: 1 }
`);
  const trace = join(sandbox.root, "git-trace");
  const setupLog = join(sandbox.root, "setup-log");
  const run = await sandbox.cli(["run", spec], {
    env: { LOOPWRIGHT_GIT_TRACE: trace, SETUP_LOG: setupLog },
  });
  assert.equal(run.code, 3, run.stderr);
  const events = readTimeline(sandbox);
  const starts = events
    .filter((event) => event.type === "gate_started")
    .map((event) => JSON.parse(event.data).phase);
  // Base: its baseline; iteration 1: grade and its recheck.
  assert.deepEqual(starts, ["baseline", "grade", "recheck"]);
  const commands = (await readFile(trace, "utf8"))
    .trim()
    .split("\n")
    .map((line) => line.split(" ")[1]);
  // After the iteration's commit: the grade checks out (no clean: neither setup nor the base gates left
  // anything in the checkout, which untouched-checkout.ts proves without git), diffs the commit it knows
  // the checkout held (the base) against the graded one, and the recheck runs no git at all (the gate left
  // the graded commit's checkout untouched) and asks no write-tree and no diff (it held the graded
  // commit). The files missing after each checkout are read from the small index it wrote, with no git
  // (missing-index-paths.ts).
  const afterCommit = commands.slice(commands.indexOf("commit-tree"));
  const checkoutWork = new Set(["read-tree", "clean", "diff", "ls-files", "write-tree"]);
  assert.deepEqual(
    afterCommit.filter((command) => checkoutWork.has(command)),
    ["read-tree", "diff"],
    commands.join(" "),
  );
  // Setup ran in prepare's two checkouts, then again for the grade: the maker changed the lockfile.
  assert.equal((await readFile(setupLog, "utf8")).split("\n").filter(Boolean).length, 3);
});
