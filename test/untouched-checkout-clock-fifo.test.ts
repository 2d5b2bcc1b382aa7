/**
 * Hostile review of untouched-checkout.ts's clock file: a gate (gates run outside the OS sandbox and may
 * write anywhere, loopwright's home included) replaces the loop's private git directory's `clock` file by
 * a FIFO. The controller that runs next (a resume after a crash) must not hang opening it: a checkout
 * or snapshot without a mark runs git in full, as with any other clock it cannot read.
 */
import assert from "node:assert/strict";
import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import { test } from "node:test";
import { createSandbox } from "./support/loop-sandbox.ts";

test("a FIFO a gate put in place of the private git directory's clock file does not hang the resumed loop", async (t) => {
  const sandbox = await createSandbox({ "README.md": "# repo\n", "a.txt": "a\n" });
  t.after(() => sandbox.cleanup());
  await writeFile(
    join(sandbox.root, "gate.sh"),
    `for clock in $(find "$LOOPWRIGHT_HOME" -path '*/git/clock'); do rm -f "$clock"; mkfifo "$clock"; done\nexit 1\n`,
  );
  const spec = await sandbox.spec(`name: fifo-clock
goal: Never reached.
repo: ./repo
maker:
  engine: scripted
  turns:
    - write: { m.txt: "iteration {{iteration}}\\n" }
gates:
  - { id: red, kind: tests-pass, run: "sh ${join(sandbox.root, "gate.sh")}" }
budget: { maxIterations: 1 }
`);
  // The controller dies right after the base gate's run (event 6: gate_ended), the FIFO planted.
  const crashed = sandbox.spawnCli(["run", spec], { env: { LOOPWRIGHT_TEST_CRASH_AFTER_EVENT: "6" } });
  await crashed.done;
  assert.equal(crashed.signalCode, "SIGKILL", crashed.output().stderr);
  const resumed = await sandbox.cli(["resume", "fifo-clock"], { timeoutMs: 60_000 });
  assert.equal(resumed.code, 3, `the resumed loop ran to its iteration cap: ${resumed.stderr}`);
});
