/**
 * A FIFO named .gitignore or .gitattributes in a loop's checkout: git opens every one it walks past with
 * a blocking open(), so a maker's snapshot (`git add --all`) or a gates' checkout (`clean`) waited for a
 * writer forever, and the run with it (SIGTERM did not end it). A maker, or a gate writing into the
 * maker's checkout, could plant one. Each run below must end by itself, as it would without the FIFO.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { after, before, test } from "node:test";
import { createSandbox, type Sandbox } from "./support/loop-sandbox.ts";
import { readTimeline } from "./support/loop-timeline.ts";

let sandbox: Sandbox;
before(async () => {
  sandbox = await createSandbox({ "README.md": "# repo\n" });
});
after(() => sandbox.cleanup());

for (const name of [".gitignore", ".gitattributes"]) {
  test(`a maker that plants a FIFO ${name}: the snapshot and the gates' checkout go on, the run ends`, async () => {
    const loop = `maker-fifo${name.replace(".git", "-")}`;
    const spec = await sandbox.spec(
      `name: ${loop}
goal: Never reached.
repo: ./repo
maker: { engine: command, run: "mkdir -p sub && echo {{iteration}} > sub/work.txt && { [ -p sub/${name} ] || mkfifo sub/${name}; }" }
verifier: { engine: command, run: "cat" }
gates: [{ id: red, kind: tests-pass, run: "false" }]
budget: { maxIterations: 2 }
`,
      join(sandbox.root, `${loop}.yaml`),
    );
    const run = await sandbox.cli(["run", spec], { timeoutMs: 60_000 });
    assert.equal(run.code, 3, run.stdout + run.stderr);
    const types = readTimeline(sandbox).map((event) => event.type);
    assert.ok(types.includes("commit_created"), types.join(" "));
  });
}

test("a gate that plants a FIFO .gitignore in the maker's checkout: the next maker turn goes on, the run ends", async () => {
  const spec = await sandbox.spec(
    `name: gate-fifo
goal: Never reached.
repo: ./repo
maker:
  engine: scripted
  turns:
    - write: { work.txt: "iteration {{iteration}}\\n" }
gates: [{ id: red, kind: tests-pass, run: "[ -p ../maker/.gitignore ] || mkfifo ../maker/.gitignore; exit 1" }]
budget: { maxIterations: 3 }
`,
    join(sandbox.root, "gate-fifo.yaml"),
  );
  const run = await sandbox.cli(["run", spec], { timeoutMs: 60_000 });
  assert.equal(run.code, 3, run.stdout + run.stderr);
});
