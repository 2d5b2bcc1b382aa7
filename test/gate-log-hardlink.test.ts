/**
 * A gate log the maker replaced by a hard link to a file outside its checkout (the user's, on the same
 * file system): O_NOFOLLOW stops a symbolic link, not a hard link, and the log's O_TRUNC open then
 * empties the user's file and writes the gate's output into it. The log must not be written through it.
 */
import assert from "node:assert/strict";
import { readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { test } from "node:test";
import { createSandbox } from "./support/loop-sandbox.ts";

test("a gate log the maker hard-linked to a file outside its checkout does not overwrite that file", async () => {
  const sandbox = await createSandbox({ "README.md": "# repo\n" });
  try {
    const precious = join(sandbox.root, "precious.txt");
    await writeFile(precious, "the user's notes\n");
    await sandbox.spec(`name: hardlinked-log
goal: done.txt exists
repo: ./repo
maker:
  engine: scripted
  turns:
    - run: ["mkdir -p ../../iterations/1/gates-grade && ln -f ${precious} ../../iterations/1/gates-grade/done.log"]
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
    assert.doesNotMatch(run.stderr, /internal error/, run.stderr);
    assert.equal(run.code, 0, run.stderr + run.stdout);
    assert.equal(await readFile(precious, "utf8"), "the user's notes\n");
  } finally {
    await sandbox.cleanup();
  }
});
