/**
 * End to end: a gate that plants an untracked `.gitattributes` (eol=crlf), hidden from clean by its own
 * edit of the tracked .gitignore, and edits a tracked file so that the next checkout writes it again:
 * every later gate run (the grade of the next commit, its recheck) still sees the commit's bytes.
 */
import assert from "node:assert/strict";
import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { after, before, test } from "node:test";
import { createSandbox, type Sandbox } from "./support/loop-sandbox.ts";

// What the gate saw in a.txt (crlf or lf), then what it plants for the next checkout; it always fails.
const gateScript = `if grep -q "$(printf '\\r')" a.txt; then echo crlf >> "$GATE_LOG"; else echo lf >> "$GATE_LOG"; fi
printf '* text eol=crlf\\n' > .gitattributes
printf '.gitattributes\\n' >> .gitignore
echo edited by the gate > a.txt
exit 1
`;

let sandbox: Sandbox;
before(async () => {
  sandbox = await createSandbox({
    "README.md": "# repo\n",
    ".gitignore": "node_modules/\n",
    "a.txt": "one\ntwo\n",
    "gate.sh": gateScript,
  });
});
after(() => sandbox.cleanup());

test("a .gitattributes a gate planted does not convert the files the next gates run on", async () => {
  const spec = await sandbox.spec(`name: planted-attributes
goal: Never reached.
repo: ./repo
maker:
  engine: scripted
  turns:
    - write: { b.txt: "iteration {{iteration}}\\n" }
gates:
  - { id: red, kind: tests-pass, run: "sh gate.sh" }
budget: { maxIterations: 1 }
`);
  const gateLog = join(sandbox.root, "gate-log");
  const run = await sandbox.cli(["run", spec], { env: { GATE_LOG: gateLog } });
  assert.equal(run.code, 3, run.stderr);
  // The base's baseline, iteration 1's grade and its recheck: each saw a.txt as committed.
  assert.deepEqual((await readFile(gateLog, "utf8")).trim().split("\n"), ["lf", "lf", "lf"]);
});
