/**
 * A gate log the maker replaced by a FIFO (no reader): loopwright opens its logs with a blocking
 * open(2), which waits for a reader that never comes and freezes the controller's event loop (no
 * timeout, no SIGINT handler runs). The log must be refused at once, as a link is, and the loop go on.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { test } from "node:test";
import { createSandbox } from "./support/loop-sandbox.ts";

test("a gate log the maker replaced by a FIFO is refused at once: a recorded gate error, the loop goes on", async () => {
  const sandbox = await createSandbox({ "README.md": "# repo\n" });
  try {
    await sandbox.spec(`name: fifo-log
goal: done.txt exists
repo: ./repo
maker:
  engine: scripted
  turns:
    - run: ["mkdir -p ../../iterations/1/gates-grade && rm -f ../../iterations/1/gates-grade/done.log && mkfifo ../../iterations/1/gates-grade/done.log"]
      write: { done.txt: "yes\\n" }
gates:
  - { id: done, kind: tests-pass, run: "ls | grep -q '^done[.]txt$' && echo all good" }
budget: { maxIterations: 2 }
`);
    // Without the OS sandbox, which would stop the maker writing outside its checkout: this is the layer below it.
    const run = await sandbox.cli(["run", join(sandbox.root, "loop.yaml")], {
      timeoutMs: 60_000,
      env: { LOOPWRIGHT_SANDBOX: "off" },
    });
    assert.notEqual(
      run.code,
      null,
      `the controller hung on the FIFO and was killed: ${run.stderr}${run.stdout}`,
    );
    assert.doesNotMatch(run.stderr, /internal error/, run.stderr);
    assert.equal(run.code, 0, run.stderr + run.stdout);
  } finally {
    await sandbox.cleanup();
  }
});
