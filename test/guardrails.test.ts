/**
 * Guardrails, each a real loop through the real CLI: hung and daemonizing gates, crashing, garbage-printing
 * and never-ending engines, the stop reasons and their exit codes, scope, the verifier's disposable
 * worktree, the command engine's contract, secret redaction, and pushing on finish. After every run no
 * process started by the loop survives (every process loopwright starts inherits the sandbox's
 * LOOPWRIGHT_HOME, which is how the test finds them).
 */
import assert from "node:assert/strict";
import { chmod, mkdir, readdir, readFile, stat, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { after, before, test } from "node:test";
import type { EventPayloads, EventType, LoopEvent } from "../src/loop/events.ts";
import { type CliResult, createSandbox, type Sandbox } from "./support/loop-sandbox.ts";
import { eventsIn, loopSummary } from "./support/loop-timeline.ts";
import { survivors } from "./support/surviving-processes.ts";

let sandbox: Sandbox;
before(async () => {
  sandbox = await createSandbox({ "README.md": "# repo\n", "answer.txt": "0\n" });
});
after(() => sandbox.cleanup());

interface LoopRun extends CliResult {
  events: LoopEvent[];
  /** `show <loop> --json`. */
  summary: {
    id: string;
    stopReason: string;
    stopMessage: string;
    iterations: {
      iteration: number;
      outcome: string;
      summary: string;
      commit?: string;
      repeat: boolean;
      gates: { id: string; phase: string; passed: boolean; timedOut: boolean; exitCode: number | null }[];
    }[];
    finished?: { pushed: boolean; sha: string };
  };
}

/**
 * Writes the spec (and any helper scripts next to it, made executable), runs the loop with `--json`,
 * asserts that no process it started survives, and returns its events and `show --json` summary.
 */
async function runLoop(
  box: Sandbox,
  spec: string,
  options: { scripts?: Record<string, string>; env?: NodeJS.ProcessEnv } = {},
): Promise<LoopRun> {
  for (const [file, body] of Object.entries(options.scripts ?? {})) {
    await writeFile(join(box.root, file), body);
    await chmod(join(box.root, file), 0o755);
  }
  const name = /^name: (\S+)$/m.exec(spec)?.[1] ?? "";
  const specPath = await box.spec(spec, join(box.root, `${name}.yaml`));
  const result = await box.cli(["run", specPath, "--json"], { env: options.env, timeoutMs: 60_000 });
  assert.deepEqual(survivors(box.home), [], "no process of the loop survives it");
  return { ...result, events: eventsIn<LoopEvent>(result.stdout), summary: await loopSummary(box, name) };
}

/** The payloads of every event of one type, in order. */
function eventsOf<K extends EventType>(run: LoopRun, type: K): EventPayloads[K][] {
  return run.events.filter((event) => event.type === type).map((event) => event.data as EventPayloads[K]);
}

async function brief(box: Sandbox, loop: string, iteration: number): Promise<string> {
  const result = await box.cli(["brief", loop, "--iteration", String(iteration)]);
  assert.equal(result.code, 0, result.stderr);
  return result.stdout;
}

const answerGate = `  - { id: answer, kind: tests-pass, run: "grep -qx 42 answer.txt", timeout: 20s }`;
const approvingVerdict = `'{"overall":"pass","gates":[{"id":"answer","passed":true,"evidence":[{"file":"answer.txt","line":1}]}]}'`;

test("a gate that hangs past its timeout is red 'timed out', killed, and the loop goes on", async () => {
  const run = await runLoop(
    sandbox,
    `name: hanging-gate
goal: answer.txt says 42.
repo: ./repo
maker:
  engine: scripted
  turns: [{ say: "attempt {{iteration}}", write: { attempt.txt: "{{iteration}}\\n" } }]
gates:
  - { id: hangs, kind: tests-pass, run: "echo waiting forever; sleep 300", timeout: 1s }
  - { id: quick, kind: lint-clean, run: "true" }
budget: { maxIterations: 2 }
`,
  );
  assert.equal(run.code, 3, run.stderr);
  assert.equal(run.summary.stopReason, "budget_exhausted");
  assert.deepEqual(
    run.summary.iterations.map((iteration) => iteration.outcome),
    ["failed", "failed"],
  );
  for (const iteration of run.summary.iterations) {
    const hangs = iteration.gates.find((gate) => gate.id === "hangs");
    assert.deepEqual({ passed: hangs?.passed, timedOut: hangs?.timedOut }, { passed: false, timedOut: true });
    assert.equal(iteration.gates.find((gate) => gate.id === "quick")?.passed, true, "every gate runs");
  }
  assert.match(
    await brief(sandbox, "hanging-gate", 2),
    /### Gate hangs failed: timed out\n[\s\S]*waiting forever/,
  );
  const show = await sandbox.cli(["show", "hanging-gate"]);
  assert.match(show.stdout, /✗ hangs timed out/);
});

test("a gate that leaves a daemon behind: the daemon is killed", async () => {
  const run = await runLoop(
    sandbox,
    `name: daemon-gate
goal: answer.txt says 42.
repo: ./repo
maker:
  engine: scripted
  turns: [{ say: "wrote 42", write: { answer.txt: "42\\n" } }]
gates:
  - { id: daemon, kind: tests-pass, run: "setsid sleep 300 & echo started a daemon", timeout: 20s }
`,
  );
  assert.equal(run.code, 0, run.stderr);
  const results = eventsOf(run, "gate_ended").map((ended) => ended.result);
  assert.deepEqual(
    results.map((result) => [result.phase, result.passed]),
    [
      ["baseline", true],
      ["grade", true],
      ["confirm", true],
    ],
  );
  for (const result of results) assert.ok(result.survivorsKilled >= 1, "the daemon was found and killed");
});

test("an engine that crashes three times breaks the circuit (exit 5) without spending the iteration budget", async () => {
  const run = await runLoop(
    sandbox,
    `name: crashing-engine
goal: answer.txt says 42.
repo: ./repo
maker: { engine: command, run: "echo 'engine exploded' >&2; exit 1" }
verifier: { engine: command, run: "cat" }
gates:
${answerGate}
budget: { maxIterations: 1 }
`,
  );
  assert.equal(run.code, 5, run.stderr);
  assert.equal(run.summary.stopReason, "circuit_broken");
  assert.deepEqual(
    run.summary.iterations.map((iteration) => iteration.outcome),
    ["infra_error", "infra_error", "infra_error"],
  );
  for (const iteration of run.summary.iterations) {
    assert.match(iteration.summary, /^maker crashed: .*exited with code 1: engine exploded$/);
  }
  assert.match(run.summary.stopMessage, /3 infrastructure errors in a row/);
});

test("a verifier that prints garbage or an inadmissible verdict is an infrastructure error; three in a row break the circuit", async () => {
  const run = await runLoop(
    sandbox,
    `name: bad-verifier
goal: answer.txt says 42.
repo: ./repo
maker:
  engine: scripted
  turns: [{ say: "attempt {{iteration}}", write: { answer.txt: "42\\n", attempt.txt: "{{iteration}}\\n" } }]
verifier: { engine: command, run: ./bad-verifier.sh }
gates:
${answerGate}
budget: { maxIterations: 2 }
`,
    {
      scripts: {
        "bad-verifier.sh": `#!/bin/sh
case "$LOOPWRIGHT_ITERATION" in
  1) echo "Looks good to me!" ;;
  2) echo '{"overall":"pass","gates":[]}' ;;
  3) echo '{"overall":"fail","gates":[{"id":"answer","passed":false,"reason":"the answer is not explained"}]}' ;;
  4) echo '{"overall":"pass","gates":[{"id":"answer","passed":true}]}' ;;
  5) echo '{"overall":"fail","gates":[{"id":"answer","passed":true,"evidence":[{"file":"answer.txt","line":1}]}]}' ;;
  *) echo 'not json {' ;;
esac
`,
      },
    },
  );
  assert.equal(run.code, 5, run.stderr);
  assert.equal(run.summary.stopReason, "circuit_broken");
  // A valid rejection (iteration 3) resets the count: the circuit breaks on the third invalid in a row.
  assert.deepEqual(
    run.summary.iterations.map((iteration) => iteration.outcome),
    ["infra_error", "infra_error", "failed", "infra_error", "infra_error", "infra_error"],
  );
  const verifiers = eventsOf(run, "verifier_ended");
  assert.deepEqual(
    verifiers.map((ended) => ended.status),
    ["invalid", "invalid", "ruled", "invalid", "invalid", "invalid"],
  );
  const problems = [
    /not one JSON value: "Looks good to me!"/,
    /no ruling on gate 'answer'/,
    undefined,
    /gates\.answer: an approval needs evidence/,
    /overall: is fail but the required gate and tamper rulings say pass/,
    /not one JSON value/,
  ];
  problems.forEach((problem, index) => {
    if (!problem) return;
    assert.match(verifiers[index].error ?? "", problem);
    assert.match(run.summary.iterations[index].summary, problem);
  });
});

test("a maker that never exits is killed at the wall clock; its partial work is committed and graded", async () => {
  const run = await runLoop(
    sandbox,
    `name: endless-maker
goal: answer.txt says 42.
repo: ./repo
maker: { engine: command, run: ./slow-maker.sh }
verifier: { engine: command, run: "cat" }
gates:
${answerGate}
budget: { maxIterations: 2, wallClockPerIteration: 2s }
`,
    {
      scripts: {
        "slow-maker.sh": `#!/bin/sh
echo "iteration $LOOPWRIGHT_ITERATION: started on the answer"
echo "partial work $LOOPWRIGHT_ITERATION" > partial.txt
if [ "$LOOPWRIGHT_ITERATION" = 1 ]; then sleep 300; fi
echo 41 > answer.txt
`,
      },
    },
  );
  assert.equal(run.code, 3, run.stderr);
  assert.deepEqual(
    eventsOf(run, "maker_ended").map((ended) => ended.status),
    ["timeout", "completed"],
  );
  const first = run.summary.iterations[0];
  assert.equal(
    first.outcome,
    "failed",
    "a timeout is a finished, failed attempt, not an infrastructure error",
  );
  assert.ok(first.commit);
  assert.equal(await sandbox.git("show", `${first.commit}:partial.txt`), "partial work 1");
  const graded = eventsOf(run, "gate_ended").filter((ended) => ended.iteration === 1);
  // Graded, then rechecked once (a red gate is re-run before an iteration is spent on it): same commit.
  assert.deepEqual(
    graded.map((ended) => [ended.result.phase, ended.result.sha]),
    [
      ["grade", first.commit],
      ["recheck", first.commit],
    ],
  );
  const next = await brief(sandbox, "endless-maker", 2);
  assert.match(next, /The maker ran out of time: its work so far was committed and graded\./);
  assert.match(next, /Iteration 1: iteration 1: started on the answer/);
});

test("budget_exhausted: a maker that keeps changing things but never fixes them stops at the cap, exit 3", async () => {
  const run = await runLoop(
    sandbox,
    `name: never-fixes
goal: answer.txt says 42.
repo: ./repo
maker:
  engine: scripted
  turns: [{ say: "tried {{iteration}}", write: { answer.txt: "{{iteration}}\\n" } }]
gates:
${answerGate}
budget: { maxIterations: 2 }
`,
  );
  assert.equal(run.code, 3, run.stderr);
  assert.equal(run.summary.stopReason, "budget_exhausted");
  assert.deepEqual(
    run.summary.iterations.map((iteration) => [iteration.outcome, iteration.repeat]),
    [
      ["failed", false],
      ["failed", false],
    ],
  );
  assert.match(run.stdout, /"reason":"budget_exhausted","message":"iteration budget spent \(2\)"/);
});

test("no_progress: the first repeat replans, the revised approach reaches the brief, the second repeat stops (exit 4, over the budget cap)", async () => {
  const run = await runLoop(
    sandbox,
    `name: stuck-maker
goal: answer.txt says 42.
repo: ./repo
maker: { engine: command, run: ./stuck-maker.sh }
verifier: { engine: command, run: "cat" }
gates:
${answerGate}
budget: { maxIterations: 3 }
`,
    {
      scripts: {
        "stuck-maker.sh": `#!/bin/sh
if [ "$LOOPWRIGHT_ROLE" = replanner ]; then
  echo '{"approach": "Read the failing gate before editing anything.", "hypotheses": ["the gate wants exactly 42"]}'
  exit 0
fi
echo 41 > answer.txt
echo "set the answer to 41"
`,
      },
    },
  );
  // At iteration 3 both no_progress and budget_exhausted hold: no_progress wins.
  assert.equal(run.code, 4, run.stderr);
  assert.equal(run.summary.stopReason, "no_progress");
  assert.deepEqual(
    run.summary.iterations.map((iteration) => [iteration.outcome, iteration.repeat]),
    [
      ["failed", false],
      ["failed", true],
      ["failed", true],
    ],
  );
  const replans = eventsOf(run, "replan_ended");
  assert.equal(replans.length, 1, "one replanning turn, after the first repeat");
  assert.deepEqual([replans[0].iteration, replans[0].status], [2, "completed"]);
  const third = await brief(sandbox, "stuck-maker", 3);
  assert.match(
    third,
    /## Revised approach\n.*\nRead the failing gate before editing anything\.\n\nHypotheses to test:\n- the gate wants exactly 42/,
  );
  assert.match(third, /Iteration 2 \[REPEAT/);
  assert.doesNotMatch(await brief(sandbox, "stuck-maker", 2), /Revised approach/);
});

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

test("the verifier runs in a disposable worktree: what it writes is recorded, never on the loop branch", async () => {
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
  assert.deepEqual([...ended.wroteFiles].sort(), ["answer.txt", "verifier-notes.txt"]);
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
  const box = await createSandbox({ "README.md": "# repo\n", "answer.txt": "0\n" });
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
