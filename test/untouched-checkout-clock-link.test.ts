/**
 * Hostile review of untouched-checkout.ts's clock file: a gate (outside the OS sandbox) makes the loop's
 * private git directory's `clock` another name of a file it may not touch (a hard link to a tracked file of
 * the user's repository). The controller that runs next (a resume after a crash) must not set that file's
 * times (every mark did: its modification time went to 1970), and the loop must still grade the right
 * files.
 */
import assert from "node:assert/strict";
import { readFile, stat, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { test } from "node:test";
import { createSandbox } from "./support/loop-sandbox.ts";

test("a hard link a gate put in place of the private git directory's clock file leaves the linked file's times alone", async (t) => {
  const sandbox = await createSandbox({ "README.md": "# repo\n", "a.txt": "a\n" });
  t.after(() => sandbox.cleanup());
  const tracked = join(sandbox.repo, "README.md");
  const before = await stat(tracked, { bigint: true });
  // Green once the maker's file is in the gates' checkout: red on the base commit, green on iteration 1.
  await writeFile(
    join(sandbox.root, "gate.sh"),
    `for clock in $(find "$LOOPWRIGHT_HOME" -path '*/git/clock'); do ln -f "${tracked}" "$clock"; done\n` +
      `test "$(cat m.txt 2>/dev/null)" = "iteration 1"\n`,
  );
  const spec = await sandbox.spec(`name: linked-clock
goal: Write m.txt.
repo: ./repo
maker:
  engine: scripted
  turns:
    - write: { m.txt: "iteration {{iteration}}\\n" }
gates:
  - { id: red, kind: tests-pass, run: "sh ${join(sandbox.root, "gate.sh")}" }
budget: { maxIterations: 2 }
`);
  // The controller dies right after the base gate's run (event 6: gate_ended), the link planted.
  const crashed = sandbox.spawnCli(["run", spec], { env: { LOOPWRIGHT_TEST_CRASH_AFTER_EVENT: "6" } });
  await crashed.done;
  assert.equal(crashed.signalCode, "SIGKILL", crashed.output().stderr);
  const resumed = await sandbox.cli(["resume", "linked-clock"], { timeoutMs: 120_000 });
  assert.equal(resumed.code, 0, `the resumed loop is verified: ${resumed.stdout}\n${resumed.stderr}`);
  const after = await stat(tracked, { bigint: true });
  assert.equal(after.mtimeNs, before.mtimeNs, "the linked file's modification time is as it was");
  assert.equal(after.atimeNs >= before.atimeNs, true, "the linked file's access time never went back");
  assert.equal(await readFile(tracked, "utf8"), "# repo\n");
});
