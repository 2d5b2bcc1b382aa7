/**
 * What a loop allows and promises, each a real loop through the real CLI: its scope (allow, deny,
 * protect), the verifier's disposable worktree, the command engine's contract (brief, context, role
 * variables, account), secret redaction, and pushing on finish. After every run no process started by
 * the loop survives.
 */
import assert from "node:assert/strict";
import { mkdir, readdir, readFile, stat } from "node:fs/promises";
import { join } from "node:path";
import { after, before, test } from "node:test";
import { sandboxAvailability } from "../src/sandbox/sandbox-availability.ts";
import {
  answerGate,
  approvingVerdict,
  brief,
  createAnswerSandbox,
  runLoop,
} from "./support/guardrail-loops.ts";
import { eventsOf } from "./support/loop-events.ts";
import type { Sandbox } from "./support/loop-sandbox.ts";

let sandbox: Sandbox;
before(async () => {
  sandbox = await createAnswerSandbox();
});
after(() => sandbox.cleanup());

test("scope: a file outside allow or inside deny fails the iteration and is named in the next brief; protected files reach the verifier", async () => {
  const probe = join(sandbox.root, "probe-scope");
  await mkdir(probe, { recursive: true });
  const run = await runLoop(
    sandbox,
    `name: scoped
goal: src/main.txt exists.
repo: ./repo
maker:
  engine: scripted
  turns:
    - say: "touched too much"
      write: { src/main.txt: "v1\\n", notes.txt: "scribbles\\n", src/db.env: "PASSWORD=x\\n" }
    - say: "reverted the stray files"
      delete: [notes.txt, src/db.env]
      write: { src/main.txt: "v2\\n", src/config/limits.json: "{}\\n" }
verifier: { engine: command, run: ./rejecting-verifier.sh }
gates:
  - { id: main, kind: tests-pass, run: "test -f src/main.txt" }
scope: { allow: ["src/**"], deny: ["src/*.env"], protect: ["src/config/**"] }
budget: { maxIterations: 2 }
`,
    {
      env: { PROBE_DIR: probe },
      scripts: {
        "rejecting-verifier.sh": `#!/bin/sh
cp "$LOOPWRIGHT_CONTEXT_FILE" "$PROBE_DIR/context-$LOOPWRIGHT_ITERATION.json"
cat > "$PROBE_DIR/prompt-$LOOPWRIGHT_ITERATION.md"
node -e 'const c = require(process.env.LOOPWRIGHT_CONTEXT_FILE); console.log(JSON.stringify({ overall: "fail", gates: [{ id: "main", passed: false, reason: "the limits change is unexplained" }], tamper: c.tamperFlags.map((f) => ({ id: f.id, legitimate: false, reason: "unexplained" })) }))'
`,
      },
    },
  );
  assert.equal(run.code, 3, run.stderr);
  const [first, second] = run.summary.iterations;
  assert.equal(first.outcome, "failed");
  assert.equal(first.summary, "change outside the loop's scope: notes.txt, src/db.env");
  assert.equal(first.gates.find((gate) => gate.id === "main")?.passed, true, "green gates do not save it");
  assert.deepEqual(
    eventsOf(run, "verifier_started").map((started) => started.iteration),
    [2],
    "no verifier for an out-of-scope change",
  );
  const next = await brief(sandbox, "scoped", 2);
  assert.match(next, /- Out of scope: notes\.txt \(not in allow \(src\/\*\*\)\)\. Revert this change\./);
  assert.match(next, /- Out of scope: src\/db\.env \(denied by src\/\*\.env\)\. Revert this change\./);

  assert.equal(second.summary, "the verifier did not approve");
  const context = JSON.parse(await readFile(join(probe, "context-2.json"), "utf8"));
  assert.deepEqual(context.protectedFiles, ["src/config/limits.json"]);
  assert.deepEqual(
    context.tamperFlags.map((flag: { id: string; file: string }) => [flag.id, flag.file]),
    [["T1", "src/config/limits.json"]],
  );
  assert.match(
    await readFile(join(probe, "prompt-2.md"), "utf8"),
    /## Tamper flags\n.*\n- T1 tamper-file at src\/config\/limits\.json: protected file changed/,
  );
});

test("the verifier runs in a disposable, read-only worktree: what it writes is denied (or, without a sandbox, recorded), never on the loop branch", async () => {
  const run = await runLoop(
    sandbox,
    `name: scribbling-verifier
goal: answer.txt says 42.
repo: ./repo
maker:
  engine: scripted
  turns: [{ say: "wrote 42", write: { answer.txt: "42\\n" } }]
verifier: { engine: command, run: ./scribbling-verifier.sh }
gates:
${answerGate}
`,
    {
      scripts: {
        "scribbling-verifier.sh": `#!/bin/sh
echo "the verifier was here" > verifier-notes.txt
echo 7 > answer.txt
echo ${approvingVerdict}
`,
      },
    },
  );
  assert.equal(run.code, 0, run.stderr);
  const [ended] = eventsOf(run, "verifier_ended");
  assert.equal(ended.status, "ruled");
  // The operating-system sandbox makes the worktree read-only; without one, the writes are recorded.
  const expected = sandboxAvailability().available ? [] : ["answer.txt", "verifier-notes.txt"];
  assert.deepEqual([...ended.wroteFiles].sort(), expected);
  assert.equal(await sandbox.git("show", "loop/scribbling-verifier:answer.txt"), "42");
  assert.equal(
    await sandbox.git("ls-tree", "--name-only", "loop/scribbling-verifier", "verifier-notes.txt"),
    "",
  );
  assert.doesNotMatch(await sandbox.git("worktree", "list"), /verify-/, "the scratch worktree is gone");
});

test("the command engine contract: brief on stdin and in a file, JSON context, role variables, stdout as the account", async () => {
  const probe = join(sandbox.root, "probe-contract");
  await mkdir(probe, { recursive: true });
  const record = (role: string) => `out="$PROBE_DIR/${role}-$LOOPWRIGHT_ITERATION"
mkdir -p "$out"
cat > "$out/stdin.md"
cp "$LOOPWRIGHT_BRIEF_FILE" "$out/brief-file.md"
cp "$LOOPWRIGHT_CONTEXT_FILE" "$out/context.json"
printf '%s\\n' "$LOOPWRIGHT_ROLE" "$LOOPWRIGHT_ITERATION" "$LOOPWRIGHT_LOOP" > "$out/env.txt"
`;
  const run = await runLoop(
    sandbox,
    `name: contract
goal: answer.txt says 42.
repo: ./repo
maker: { engine: command, run: ./contract-maker.sh }
verifier: { engine: command, run: ./contract-verifier.sh }
gates:
${answerGate}
budget: { maxIterations: 3 }
`,
    {
      env: { PROBE_DIR: probe },
      scripts: {
        "contract-maker.sh": `#!/bin/sh
${record("maker")}
if [ "$LOOPWRIGHT_ITERATION" = 1 ]; then
  echo 41 > answer.txt
  echo "Approach one: guessed 41 from the README."
  exit 0
fi
echo 42 > answer.txt
echo "START-OF-A-LONG-ACCOUNT"
i=0
while [ $i -lt 60 ]; do echo "working line $i of a long account of the attempt"; i=$((i+1)); done
echo "END: wrote 42 after reading the failing gate."
`,
        "contract-verifier.sh": `#!/bin/sh
${record("verifier")}
echo ${approvingVerdict}
`,
      },
    },
  );
  assert.equal(run.code, 0, run.stderr);
  const baseSha = await sandbox.git("rev-parse", "main");
  const [first, second] = run.summary.iterations;
  const read = (path: string) => readFile(join(probe, path), "utf8");

  for (const iteration of [1, 2]) {
    const sent = await brief(sandbox, "contract", iteration);
    assert.equal(await read(`maker-${iteration}/stdin.md`), sent, "the brief on stdin");
    assert.equal(await read(`maker-${iteration}/brief-file.md`), sent, "the brief in $LOOPWRIGHT_BRIEF_FILE");
    assert.equal(await read(`maker-${iteration}/env.txt`), `maker\n${iteration}\ncontract\n`);
  }
  const makerContext = JSON.parse(await read("maker-2/context.json"));
  assert.equal(makerContext.loop, "contract");
  assert.equal(makerContext.iteration, 2);
  assert.equal(makerContext.role, "maker");
  assert.equal(makerContext.baseSha, baseSha);
  assert.equal(makerContext.sha, first.commit, "the maker starts from the last commit");
  assert.deepEqual(
    makerContext.gates.map((gate: { id: string; kind: string; command: string }) => [
      gate.id,
      gate.kind,
      gate.command,
    ]),
    [["answer", "tests-pass", "grep -qx 42 answer.txt"]],
  );

  assert.equal(await read("verifier-2/env.txt"), "verifier\n2\ncontract\n");
  const verifierContext = JSON.parse(await read("verifier-2/context.json"));
  assert.equal(verifierContext.role, "verifier");
  assert.equal(verifierContext.sha, second.commit, "the verifier gets the graded SHA");
  assert.equal(await sandbox.git("rev-parse", "loop/contract"), second.commit);
  const [gate] = verifierContext.gates;
  assert.deepEqual([gate.id, gate.exitCode, gate.passed], ["answer", 0, true]);
  assert.equal(typeof gate.durationMs, "number");
  assert.equal(typeof gate.tail, "string");
  assert.match(await readFile(gate.logPath, "utf8"), /\$ grep -qx 42 answer\.txt/);
  assert.match(await readFile(verifierContext.diffPath, "utf8"), /^\+42$/m);
  assert.equal(await read("verifier-2/stdin.md"), await read("verifier-2/brief-file.md"));

  const accounts = eventsOf(run, "maker_ended").map((ended) => ended.account);
  assert.equal(accounts[0], "Approach one: guessed 41 from the README.\n");
  assert.ok(accounts[1].length <= 2048, `the account is the last 2 KiB (${accounts[1].length})`);
  assert.ok(accounts[1].length > 1500);
  assert.ok(accounts[1].endsWith("END: wrote 42 after reading the failing gate.\n"));
  assert.doesNotMatch(accounts[1], /START-OF-A-LONG-ACCOUNT/);
  assert.match(
    await brief(sandbox, "contract", 2),
    /- Iteration 1: Approach one: guessed 41 from the README\./,
  );
});

test("secrets from the environment are redacted in gate and maker logs, the event tail and the brief", async () => {
  const secret = "supersecretvalue123";
  const run = await runLoop(
    sandbox,
    `name: leaky-gate
goal: answer.txt says 42.
repo: ./repo
maker: { engine: command, run: ./leaky-maker.sh }
verifier: { engine: command, run: "cat" }
gates:
  - { id: leaky, kind: tests-pass, run: 'echo "calling the API with token $MY_API_TOKEN"; exit 1' }
budget: { maxIterations: 2 }
`,
    {
      env: { MY_API_TOKEN: secret },
      scripts: {
        "leaky-maker.sh": `#!/bin/sh
echo "$LOOPWRIGHT_ITERATION" > answer.txt
echo "warning: sent token $MY_API_TOKEN" >&2
echo "used the token $MY_API_TOKEN"
`,
      },
    },
  );
  assert.equal(run.code, 3, run.stderr);
  const redacted = "calling the API with token [redacted:MY_API_TOKEN]";
  const [ended] = eventsOf(run, "gate_ended");
  assert.match(ended.result.tail, new RegExp(escapeRegExp(redacted)));
  assert.match(await readFile(ended.result.logPath, "utf8"), new RegExp(escapeRegExp(redacted)));
  const logs = await sandbox.cli(["logs", "leaky-gate", "--iteration", "1"]);
  assert.match(logs.stdout, new RegExp(escapeRegExp(redacted)));
  const next = await brief(sandbox, "leaky-gate", 2);
  assert.match(next, new RegExp(escapeRegExp(redacted)));
  assert.match(next, /- Iteration 1: used the token \[redacted:MY_API_TOKEN\]/, "the maker's account too");
  assert.ok(!run.stdout.includes(secret), "not in the event stream");
  const leaks: string[] = [];
  for (const file of await filesUnder(sandbox.home)) {
    const content = await readFile(file, "latin1");
    if (content.includes(secret)) leaks.push(file);
  }
  assert.deepEqual(
    leaks,
    [],
    "the secret is nowhere under LOOPWRIGHT_HOME (gate and turn logs, database, worktrees)",
  );
});

test("finish: a verified branch is pushed to the repository's remote; finish none does not push", async () => {
  const box = await createAnswerSandbox();
  try {
    const origin = join(box.root, "origin.git");
    await box.git("init", "-q", "--bare", origin);
    await box.git("remote", "add", "origin", origin);
    await box.git("push", "-q", "origin", "main");
    const spec = (name: string, finish: string) => `name: ${name}
goal: answer.txt says 42.
repo: ./repo
maker:
  engine: scripted
  turns: [{ say: "wrote 42", write: { answer.txt: "42\\n" } }]
gates:
${answerGate}
${finish}
`;
    const pushed = await runLoop(box, spec("pushed", ""));
    assert.equal(pushed.code, 0, pushed.stderr);
    assert.equal(pushed.summary.finished?.pushed, true);
    const local = await box.git("rev-parse", "loop/pushed");
    assert.equal(await box.git("--git-dir", origin, "rev-parse", "refs/heads/loop/pushed"), local);

    const kept = await runLoop(box, spec("kept-local", "finish: { action: none }"));
    assert.equal(kept.code, 0, kept.stderr);
    assert.equal(kept.summary.finished?.pushed, false);
    assert.ok(await box.git("rev-parse", "loop/kept-local"), "the verified branch stays local");
    assert.equal(await box.git("ls-remote", "origin", "refs/heads/loop/kept-local"), "");
  } finally {
    await box.cleanup();
  }
});

async function filesUnder(directory: string): Promise<string[]> {
  const entries = await readdir(directory, { recursive: true, withFileTypes: true });
  const files: string[] = [];
  for (const entry of entries) {
    const path = join(entry.parentPath, entry.name);
    if (entry.isFile() && (await stat(path)).size < 64 * 1024 * 1024) files.push(path);
  }
  return files;
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
}
