/**
 * A fresh loop's first maker turn may take its checkout as `prepare` made it, skipping the full snapshot,
 * only when one listing shows the files unchanged: the base gates run in between, and anything may write
 * into the maker's checkout meanwhile. What was written is kept aside, never committed as the maker's.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { after, before, test } from "node:test";
import { createSandbox, type Sandbox } from "./support/loop-sandbox.ts";

let sandbox: Sandbox;
before(async () => {
  sandbox = await createSandbox();
});
after(() => sandbox.cleanup());

test("a file put in the maker's checkout while the base gates run is kept aside, not committed as the maker's", async () => {
  const spec = await sandbox.spec(
    `name: planted
goal: Never reached.
repo: ./repo
maker: { engine: command, run: "ls -A > listing.txt" }
verifier: { engine: command, run: "cat" }
gates: [{ id: plant, kind: tests-pass, run: "echo planted > ../maker/planted.txt; false" }]
budget: { maxIterations: 1 }
`,
    join(sandbox.root, "planted.yaml"),
  );
  await sandbox.cli(["run", spec]);
  const listing = await sandbox.git("show", "loop/planted:listing.txt");
  const kept = await sandbox.git("for-each-ref", "--format=%(refname)", "refs/loopwright/");
  assert.equal(listing, [".git", "README.md", "listing.txt"].join("\n"));
  assert.match(kept, /interrupted-1-0/);
});

test("with nothing written meanwhile, the first turn sees exactly the base files and nothing is kept aside", async () => {
  const spec = await sandbox.spec(
    `name: untouched
goal: Never reached.
repo: ./repo
maker: { engine: command, run: "ls -A > listing.txt" }
verifier: { engine: command, run: "cat" }
gates: [{ id: fails, kind: tests-pass, run: "false" }]
budget: { maxIterations: 1 }
`,
    join(sandbox.root, "untouched.yaml"),
  );
  await sandbox.cli(["run", spec]);
  assert.equal(
    await sandbox.git("show", "loop/untouched:listing.txt"),
    [".git", "README.md", "listing.txt"].join("\n"),
  );
  const kept = await sandbox.git("for-each-ref", "--format=%(refname)", "refs/loopwright/");
  assert.doesNotMatch(kept, /untouched/);
});
